import type { HttpResponse } from "../http/request-types.js";
import type { StateItem } from "../outdir/state.js";
import { type DownloadSource, fetchBody } from "./fetch-body.js";
import type { BodyHead, DownloadSink } from "./sink.js";
import type { Transport } from "./transport.js";

/** Outcome of {@link checkUpstream}: `unchanged` (304 or same ETag) or `changed` (new ETag). */
export interface UpstreamCheck {
  status: "unchanged" | "changed";
  /** The ETag the service announced (the stored one when 304). */
  etag: string | null;
  requestId: string | null;
}

/**
 * Revalidate-only mode (`packs sync --refresh`/`--dry-run`): the download's own transfer
 * ({@link fetchBody}: retries, expired-link refresh) with a headers-only sink: one conditional
 * request with `If-None-Match: <stored ETag>`, the body never read. Throws the service's error
 * for any other failure (`not_found`, `not_entitled`, …), NetworkError after retries,
 * InterruptedError once `signal` aborts.
 */
export async function checkUpstream(
  transport: Transport,
  source: DownloadSource,
  recorded: StateItem,
  signal?: AbortSignal,
): Promise<UpstreamCheck> {
  const sink: DownloadSink<UpstreamCheck> = {
    conditionalEtag: recorded.etag ?? undefined,
    resumePoint: () => undefined,
    unchanged: (res: HttpResponse) => ({
      status: "unchanged",
      etag: recorded.etag,
      requestId: res.requestId,
    }),
    completeOnDisk: () => Promise.reject(new Error("no range was asked for")),
    begin: (res: HttpResponse, head: BodyHead) => ({
      result: {
        status: head.etag !== null && head.etag === recorded.etag ? "unchanged" : "changed",
        etag: head.etag,
        requestId: res.requestId,
      },
    }),
    write: () => undefined,
    bytes: () => 0,
    end: () => undefined,
    reset: () => undefined,
    finish: () => Promise.reject(new Error("headers only")),
  };
  return await fetchBody(transport, { source, signal, label: "the check" }, sink);
}
