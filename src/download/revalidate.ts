import type { HttpClient, HttpResponse } from "../http/client.js";
import type { StateItem } from "../outdir/state.js";
import type { BodyHead, DownloadSink, DownloadSource } from "./fetch-body.js";
import { fetchBody, interruptedReason } from "./fetch-body.js";

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
 * InterruptedError when aborted.
 */
export async function checkUpstream(
  client: HttpClient,
  source: DownloadSource,
  recorded: StateItem,
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
  try {
    return await fetchBody(client, { source, label: "the check" }, sink);
  } catch (err) {
    if (client.signal?.aborted) throw interruptedReason(client.signal);
    throw err;
  }
}
