import type { HttpClient, HttpResponse } from "../api/http.js";
import { headerValue } from "../api/http.js";
import type { DownloadSource } from "./engine.js";
import { interruptedReason } from "./engine.js";
import { dropBody } from "./pump.js";
import type { StateItem } from "./state.js";

/** Outcome of {@link checkUpstream}: `unchanged` (304 or same ETag) or `changed` (new ETag). */
export interface UpstreamCheck {
  status: "unchanged" | "changed";
  /** The ETag the service announced (the stored one when 304). */
  etag: string | null;
  requestId: string | null;
}

/**
 * Revalidate-only mode (`--refresh`/`--dry-run`): one conditional request for a
 * recorded item with `If-None-Match: <stored ETag>`; the body is never read (destroyed at once).
 * Retries 429/5xx and connection failures like every request; an expired CDN URL (403/410 from
 * another origin) is asked for again. Throws the service's error for any other failure
 * (`not_found`, `not_entitled`, …), NetworkError after retries, InterruptedError when aborted.
 */
export async function checkUpstream(
  client: HttpClient,
  source: DownloadSource,
  recorded: StateItem,
): Promise<UpstreamCheck> {
  const retries = client.newRetryBudget();
  let refreshes = 0;
  try {
    for (;;) {
      let res: HttpResponse;
      try {
        res = await client.send({
          url: source.url,
          method: source.method ?? "GET",
          headers: {
            ...source.headers,
            ...(recorded.etag ? { "if-none-match": recorded.etag } : {}),
          },
          budget: "download",
          ...(source.body !== undefined ? { body: source.body } : {}),
          ...(source.authenticate === false ? { authenticate: false } : {}),
        });
      } catch (err) {
        await retries.wait(client.failureFromError(err), client.signal);
        continue;
      }
      if (res.status === 304 || (res.status >= 200 && res.status < 300)) {
        const etag = headerValue(res.headers, "etag") ?? null;
        dropBody(res.body);
        const unchanged = res.status === 304 || (etag !== null && etag === recorded.etag);
        return {
          status: unchanged ? "unchanged" : "changed",
          etag: res.status === 304 ? recorded.etag : etag,
          requestId: res.requestId,
        };
      }
      if ((res.status === 403 || res.status === 410) && res.url.origin !== client.serviceOrigin) {
        if (++refreshes <= 5) {
          dropBody(res.body);
          continue;
        }
      }
      const outcome = await client.failureFromResponse(res);
      if ("kind" in outcome) {
        await retries.wait(outcome, client.signal);
        continue;
      }
      throw outcome;
    }
  } catch (err) {
    if (client.signal?.aborted) throw interruptedReason(client.signal);
    throw err;
  }
}
