import { InterruptedError } from "../errors/interrupted-error.js";
import { NetworkError } from "../errors/network-error.js";
import { ResponseError } from "../errors/response-error.js";
import { SvcError } from "../errors/svc-error.js";
import { isRetryableNetworkError } from "../http/classify.js";
import type { HttpClient, HttpResponse, RequestSpec } from "../http/client.js";
import { headerValue } from "../http/client.js";
import type { DownloadSource } from "../model.js";
import { parseContentLength, parseContentRange } from "./content-range.js";
import { corruptDownload } from "./errors.js";
import { createFastBodyTransport } from "./fast-body/transport.js";
import { lowSpeedCheck } from "./low-speed.js";
import { openTransferGate } from "./rate-limit.js";

export type { DownloadSource };

/** Bytes a sink already holds and can resume from (`Range: bytes=offset-`, `If-Range: etag`). */
export interface ResumePoint {
  offset: number;
  /** Strong ETag the bytes came with. */
  etag: string;
  /** Full size in bytes, when known (undefined after a chunked response). */
  total: number | undefined;
}

/** The head of a usable 200/206 answer, as the sink sees it. */
export interface BodyHead {
  /** Offset the body starts at: 0 for 200, the resume offset for 206. */
  start: number;
  /** Full size in bytes: Content-Length of a 200, the Content-Range total of a 206. */
  total: number | undefined;
  etag: string | null;
}

/**
 * Where the bytes of a download go (cli-contract "Downloads"): the part file, stdout, or
 * nowhere (headers only). {@link fetchBody} calls `resumePoint` before each attempt, then one
 * of `unchanged` / `completeOnDisk` / `begin` (+ `write`… + `finish`), and `reset` whenever it
 * must start over from zero.
 */
export interface DownloadSink<R> {
  /** ETag for `If-None-Match` (revalidating a recorded file), when there is no resume point. */
  readonly conditionalEtag?: string | undefined;
  /** The bytes held now, or undefined to start from zero. */
  resumePoint(): ResumePoint | undefined;
  /** 304, or 200 with the conditional ETag: the recorded file is current (body not read). */
  unchanged(res: HttpResponse): R | Promise<R>;
  /** 416 `bytes *\/N` with N = the bytes held: the held bytes are the whole file. */
  completeOnDisk(res: HttpResponse, total: number): Promise<R>;
  /** A usable head: prepare for its body. Returns a result to stop here (headers only; the body is abandoned). */
  begin(res: HttpResponse, head: BodyHead): { result: R } | undefined;
  /** One body chunk; a promise pauses the socket until it settles. Throws to abort. */
  write(chunk: Buffer): undefined | Promise<void>;
  /** Bytes held now (resume offset plus what was written). */
  bytes(): number;
  /** The transfer of this attempt ended (successfully or not): release what `begin` opened. */
  end(): void;
  /** Throws away every byte held (start over from zero). Throws if that is impossible (stdout). */
  reset(reason: string): void;
  /** The whole body arrived: check it and finish. */
  finish(res: HttpResponse, head: BodyHead): Promise<R>;
}

/** Options of {@link fetchBody}. */
export interface FetchBodyOptions {
  source: DownloadSource;
  /** Builds the error of a non-retryable failure response (legacy denials); default the client's. */
  errorFromResponse?: ((res: HttpResponse) => Promise<SvcError>) | undefined;
  /** Notices (restart, refresh of an expired URL) for stderr. */
  onNotice?: ((line: string) => void) | undefined;
  /** Name of the item for notices. */
  label: string;
}

/** Most restarts from zero in one call (a 200 to a Range request, an unusable 206 or 416). */
export const MAX_RESTARTS = 3;
/**
 * Bytes beyond the best offset ever reached that a failed transfer must have gained for its
 * failure to be forgiven (the retry count reset): a server that drops every connection at the
 * same offset still ends after 5 tries.
 */
export const MIN_PROGRESS_BYTES = 64 * 1024;
/** Most fresh CDN URLs asked for in a row without progress. */
const MAX_CDN_REFRESHES = 5;

/** The InterruptedError behind an aborted signal. */
export function interruptedReason(signal: AbortSignal): InterruptedError {
  const reason: unknown = signal.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError("SIGINT");
}

/** A strong ETag (`"…"`, not `W/"…"`): the only validator safe for `If-Range`. */
export function isStrongEtag(etag: string | null | undefined): etag is string {
  return typeof etag === "string" && /^"[^"]*"$/.test(etag.trim());
}

/**
 * The per-attempt state machine of every download (cli-contract "Downloads", "Retries and rate
 * limits"), feeding `sink`:
 * - each attempt sends `source` with `Range: bytes=N-` + `If-Range` when the sink holds bytes,
 *   else `If-None-Match` when it revalidates;
 * - 206 must start at N with the known total (a chunked part takes the total from it); 200 to a
 *   Range request, an unusable 206 or a 416 other than `bytes *\/N` start over (at most 3 times);
 *   416 `bytes *\/N` with N = the bytes held completes the file;
 * - 403/410 from another origin than the service (an expired signed URL) sends `source` again;
 * - 429, 5xx, connection failures, silence and bad framing (also mid-body) are retried under
 *   one retry budget; a failure is forgiven only when the bytes held passed the best offset
 *   ever reached by 64 KiB; certificate and DNS failures end at once.
 *
 * Throws the sink's errors, ApiError/ResponseError from the service, NetworkError after
 * retries, SvcError `corrupt_download` when the body overflows its announced size,
 * InterruptedError when the client's signal aborts.
 */
export async function fetchBody<R>(
  client: HttpClient,
  opts: FetchBodyOptions,
  sink: DownloadSink<R>,
): Promise<R> {
  const notice = opts.onNotice ?? (() => undefined);
  client.useBodyTransport(createFastBodyTransport); // bodies from the CDN: docs/design.md
  const retries = client.newRetryBudget();
  let restarts = 0;
  let refreshes = 0;
  let best = 0;
  const errorFor = (res: HttpResponse): Promise<SvcError> =>
    opts.errorFromResponse ? opts.errorFromResponse(res) : client.errorFromResponse(res);
  const restartFromZero = (res: HttpResponse, why: string): void => {
    if (++restarts > MAX_RESTARTS) {
      res.body.abort();
      throw new ResponseError(
        `the service kept answering resume requests unusably (${MAX_RESTARTS} restarts from zero): ${why}`,
        { httpStatus: res.status, requestId: res.requestId },
      );
    }
    notice(`${why}; starting ${opts.label} over`);
    sink.reset(why);
  };
  const restart = (res: HttpResponse, why: string): void => {
    res.body.abort();
    restartFromZero(res, why);
  };

  for (;;) {
    const point = sink.resumePoint();
    const headers: Record<string, string> = { ...opts.source.headers };
    const conditional = point ? undefined : sink.conditionalEtag;
    if (point) {
      headers.range = `bytes=${point.offset}-`;
      headers["if-range"] = point.etag;
    } else if (conditional) {
      headers["if-none-match"] = conditional;
    }
    const spec: RequestSpec = {
      url: opts.source.url,
      method: opts.source.method ?? "GET",
      headers,
      budget: "download",
      ...(opts.source.body !== undefined ? { body: opts.source.body } : {}),
      ...(opts.source.authenticate === false ? { authenticate: false } : {}),
    };
    let res: HttpResponse;
    try {
      res = await client.send(spec);
    } catch (err) {
      await retries.wait(client.failureFromError(err), client.signal);
      continue;
    }
    const etag = headerValue(res.headers, "etag") ?? null;

    if (conditional && (res.status === 304 || (res.status === 200 && etag === conditional))) {
      res.body.abort();
      return await sink.unchanged(res);
    }

    if (res.status === 416) {
      if (!point) throw await errorFor(res);
      res.body.dump();
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      if (
        range?.kind === "unsatisfied" &&
        range.total === point.offset &&
        (point.total === undefined || point.total === range.total)
      ) {
        return await sink.completeOnDisk(res, range.total);
      }
      restart(res, "the service refused to resume (HTTP 416)");
      continue;
    }

    if ((res.status === 403 || res.status === 410) && res.url.origin !== client.serviceOrigin) {
      if (++refreshes > MAX_CDN_REFRESHES) throw await errorFor(res);
      res.body.dump();
      notice(
        `download link expired (HTTP ${res.status} from ${res.url.host}); asking the service for a fresh one`,
      );
      continue;
    }

    if (res.status !== 200 && res.status !== 206) {
      if (res.status === 429 || res.status >= 500) {
        let outcome: Awaited<ReturnType<HttpClient["failureFromResponse"]>>;
        try {
          outcome = await client.failureFromResponse(res);
        } catch (err) {
          await retries.wait(client.failureFromError(err), client.signal);
          continue;
        }
        if (!("kind" in outcome)) throw outcome;
        await retries.wait(outcome, client.signal);
        continue;
      }
      if (res.status < 300 || res.status === 304) {
        res.body.abort();
        throw new ResponseError(`unexpected HTTP ${res.status} for a download`, {
          httpStatus: res.status,
          requestId: res.requestId,
        });
      }
      throw await errorFor(res);
    }

    let head: BodyHead;
    if (res.status === 206) {
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      const usable =
        point !== undefined &&
        range?.kind === "range" &&
        range.start === point.offset &&
        (point.total === undefined || range.total === point.total) &&
        (etag === null || etag === point.etag);
      if (!usable || !point || range?.kind !== "range") {
        restart(res, "the service answered an unusable range");
        continue;
      }
      head = { start: point.offset, total: range.total ?? point.total, etag: point.etag };
    } else {
      // The file changed (or the range was ignored): this body is the new version from zero.
      if (point) restartFromZero(res, "the file changed on the service (or the range was ignored)");
      head = {
        start: 0,
        total: parseContentLength(headerValue(res.headers, "content-length")),
        etag,
      };
    }

    let stop: { result: R } | undefined;
    try {
      stop = sink.begin(res, head);
    } catch (err) {
      res.body.abort();
      throw err;
    }
    if (stop) {
      res.body.abort();
      return stop.result;
    }

    let overflow: SvcError | undefined;
    let failure: unknown;
    const lowSpeed = lowSpeedCheck(client, res.requestId);
    const gate = openTransferGate(client.transferPacing, client.clock, client.signal);
    let taken = sink.bytes();
    try {
      await res.body.consume((chunk) => {
        lowSpeed(chunk.length);
        taken += chunk.length; // bytes a paced gate still holds count too
        if (head.total !== undefined && taken > head.total) {
          overflow = corruptDownload(
            `the server sent more than the announced ${head.total} bytes`,
            {
              httpStatus: res.status,
              requestId: res.requestId,
            },
          );
          throw overflow;
        }
        return gate ? gate.write(chunk, (c) => sink.write(c)) : sink.write(chunk);
      });
    } catch (err) {
      failure = err;
    } finally {
      await gate?.settled();
      sink.end();
    }
    if (client.signal?.aborted) throw interruptedReason(client.signal);
    if (overflow) {
      sink.reset("overflow");
      throw overflow;
    }
    const held = sink.bytes();
    // Every announced byte arrived (a connection cut after the last byte of a chunked body
    // loses only its terminator), or a complete body without a size: finish.
    const allBytes =
      head.total !== undefined && held >= head.total && !(failure instanceof SvcError);
    if ((failure === undefined && head.total === undefined) || allBytes) {
      return await sink.finish(res, { ...head, total: held });
    }
    let error: NetworkError;
    if (failure === undefined) {
      error = new NetworkError(`the download ended after ${held} of ${head.total} bytes`, {
        requestId: res.requestId,
        hint: "Run the same command again to resume from the bytes already saved.",
      });
    } else if (failure instanceof NetworkError) {
      error = failure; // the low-speed rule
    } else if (failure instanceof SvcError) {
      throw failure; // the sink's own failure (file system)
    } else {
      error = client.networkError(failure, res.url, res.requestId, true);
    }
    if (!isRetryableNetworkError(error)) throw error;
    if (held >= best + MIN_PROGRESS_BYTES) {
      retries.resetFailures();
      refreshes = 0;
    }
    best = Math.max(best, held);
    if (!isStrongEtag(head.etag)) sink.reset("no strong ETag to resume against");
    await retries.wait({ kind: "network", error }, client.signal);
  }
}
