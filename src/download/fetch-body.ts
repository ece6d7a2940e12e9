import { interruptedBy } from "../errors/interrupted-error.js";
import { NetworkError } from "../errors/network-error.js";
import { ResponseError } from "../errors/response-error.js";
import { SvcError } from "../errors/svc-error.js";
import { isRetryableNetworkError } from "../http/classify.js";
import type { HttpResponse, RequestSpec } from "../http/request-types.js";
import { headerValue } from "../http/response-body.js";
import type { RetryBudget } from "../http/retry.js";
import type { DownloadSource } from "../model.js";
import { transferBody } from "./body-transfer.js";
import { parseContentLength, parseContentRange } from "./content-range.js";
import { type BodyHead, type DownloadSink, isStrongEtag, type ResumePoint } from "./sink.js";
import type { Transport } from "./transport.js";

export type { DownloadSource };

/** Options of {@link fetchBody}. */
export interface FetchBodyOptions {
  source: DownloadSource;
  /** The run's abort signal (SIGINT/SIGTERM, `--max-duration`, a library caller's signal). */
  signal?: AbortSignal | undefined;
  /** Builds the error of a non-retryable failure response (legacy denials); default the transport's. */
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
 * InterruptedError (whatever failed) once `opts.signal` has aborted.
 */
export async function fetchBody<R>(
  transport: Transport,
  opts: FetchBodyOptions,
  sink: DownloadSink<R>,
): Promise<R> {
  try {
    return await new BodyFetch(transport, opts, sink).run();
  } catch (err) {
    if (opts.signal?.aborted) throw interruptedBy(opts.signal);
    throw err;
  }
}

/** Go round once more (a retry, a restart, a fresh link). */
const AGAIN = Symbol("again");

/** One call of {@link fetchBody}: its budgets and counters across attempts. */
class BodyFetch<R> {
  readonly #t: Transport;
  readonly #opts: FetchBodyOptions;
  readonly #sink: DownloadSink<R>;
  readonly #retries: RetryBudget;
  #restarts = 0;
  #refreshes = 0;
  #best = 0;

  constructor(transport: Transport, opts: FetchBodyOptions, sink: DownloadSink<R>) {
    this.#t = transport;
    this.#opts = opts;
    this.#sink = sink;
    this.#retries = transport.newRetryBudget();
  }

  async run(): Promise<R> {
    for (;;) {
      const point = this.#sink.resumePoint();
      const conditional = point ? undefined : this.#sink.conditionalEtag;
      let res: HttpResponse;
      try {
        res = await this.#t.send(this.#spec(point, conditional));
      } catch (err) {
        await this.#retries.wait(this.#t.failureFromError(err), this.#opts.signal);
        continue;
      }
      const step = await this.#answer(res, point, conditional);
      if (step === AGAIN) continue;
      if ("result" in step) return step.result;
      const done = await this.#transfer(res, step.head);
      if (done) return done.result;
    }
  }

  /** The request of one attempt: `source` with Range/If-Range or If-None-Match. */
  #spec(point: ResumePoint | undefined, conditional: string | undefined): RequestSpec {
    const { source } = this.#opts;
    const headers: Record<string, string> = { ...source.headers };
    if (point) {
      headers.range = `bytes=${point.offset}-`;
      headers["if-range"] = point.etag;
    } else if (conditional) {
      headers["if-none-match"] = conditional;
    }
    return {
      url: source.url,
      method: source.method ?? "GET",
      headers,
      budget: "download",
      ...(source.body !== undefined ? { body: source.body } : {}),
      ...(source.authenticate === false ? { authenticate: false } : {}),
    };
  }

  /** What an answer's head means: a result, a body to read from `head`, or another attempt. */
  async #answer(
    res: HttpResponse,
    point: ResumePoint | undefined,
    conditional: string | undefined,
  ): Promise<{ result: R } | { head: BodyHead } | typeof AGAIN> {
    const etag = headerValue(res.headers, "etag") ?? null;
    if (conditional && (res.status === 304 || (res.status === 200 && etag === conditional))) {
      res.body.abort();
      return { result: await this.#sink.unchanged(res) };
    }
    if (res.status === 416) return this.#unsatisfiable(res, point);
    if ((res.status === 403 || res.status === 410) && res.url.origin !== this.#t.serviceOrigin) {
      if (++this.#refreshes > MAX_CDN_REFRESHES) throw await this.#errorFor(res);
      res.body.dump();
      this.#opts.onNotice?.(
        `download link expired (HTTP ${res.status} from ${res.url.host}); asking the service for a fresh one`,
      );
      return AGAIN;
    }
    if (res.status !== 200 && res.status !== 206) return this.#failed(res);
    return this.#head(res, point, etag);
  }

  /** 416: the held bytes are the whole file (`bytes *\/N`, N = held, no other ETag), else start over. */
  async #unsatisfiable(
    res: HttpResponse,
    point: ResumePoint | undefined,
  ): Promise<{ result: R } | typeof AGAIN> {
    if (!point) throw await this.#errorFor(res);
    res.body.dump();
    const range = parseContentRange(headerValue(res.headers, "content-range"));
    if (
      range?.kind === "unsatisfied" &&
      range.total === point.offset &&
      (point.total === undefined || point.total === range.total) &&
      (headerValue(res.headers, "etag") ?? point.etag) === point.etag
    ) {
      return { result: await this.#sink.completeOnDisk(res, range.total) };
    }
    this.#restart(res, "the service refused to resume (HTTP 416)");
    return AGAIN;
  }

  /** Any other non-2xx answer: 429/5xx are retried under the budget; the rest throw. */
  async #failed(res: HttpResponse): Promise<typeof AGAIN> {
    if (res.status === 429 || res.status >= 500) {
      let outcome: Awaited<ReturnType<Transport["failureFromResponse"]>>;
      try {
        outcome = await this.#t.failureFromResponse(res);
      } catch (err) {
        await this.#retries.wait(this.#t.failureFromError(err), this.#opts.signal);
        return AGAIN;
      }
      if (!("kind" in outcome)) throw outcome;
      await this.#retries.wait(outcome, this.#opts.signal);
      return AGAIN;
    }
    if (res.status < 300 || res.status === 304) {
      res.body.abort();
      throw new ResponseError(`unexpected HTTP ${res.status} for a download`, {
        httpStatus: res.status,
        requestId: res.requestId,
      });
    }
    throw await this.#errorFor(res);
  }

  /** A 200/206 head: the body's start and total, or a restart when it cannot continue the bytes held. */
  #head(
    res: HttpResponse,
    point: ResumePoint | undefined,
    etag: string | null,
  ): { head: BodyHead } | typeof AGAIN {
    if (res.status === 206) {
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      const usable =
        point !== undefined &&
        range?.kind === "range" &&
        range.start === point.offset &&
        (point.total === undefined || range.total === point.total) &&
        (etag === null || etag === point.etag);
      if (!usable || !point || range?.kind !== "range") {
        this.#restart(res, "the service answered an unusable range");
        return AGAIN;
      }
      return { head: { start: point.offset, total: range.total ?? point.total, etag: point.etag } };
    }
    // The file changed (or the range was ignored): this body is the new version from zero.
    if (point)
      this.#restartFromZero(res, "the file changed on the service (or the range was ignored)");
    const total = parseContentLength(headerValue(res.headers, "content-length"));
    return { head: { start: 0, total, etag } };
  }

  /** Reads the body into the sink: the result, or undefined after a retryable failure (waited). */
  async #transfer(res: HttpResponse, head: BodyHead): Promise<{ result: R } | undefined> {
    const sink = this.#sink;
    let stop: { result: R } | undefined;
    try {
      stop = sink.begin(res, head);
    } catch (err) {
      res.body.abort();
      throw err;
    }
    if (stop) {
      res.body.abort();
      return stop;
    }
    const { signal } = this.#opts;
    const { failure, overflow } = await transferBody(this.#t, res, head, sink, signal);
    if (signal?.aborted) throw interruptedBy(signal);
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
      return { result: await sink.finish(res, { ...head, total: held }) };
    }
    const error = this.#transferError(res, head, held, failure);
    if (!isRetryableNetworkError(error)) throw error;
    if (held >= this.#best + MIN_PROGRESS_BYTES) {
      this.#retries.resetFailures();
      this.#refreshes = 0;
    }
    this.#best = Math.max(this.#best, held);
    if (!isStrongEtag(head.etag)) sink.reset("no strong ETag to resume against");
    await this.#retries.wait({ kind: "network", error }, signal);
    return undefined;
  }

  /** Why an incomplete transfer stopped, as a NetworkError (the sink's own failure is thrown). */
  #transferError(res: HttpResponse, head: BodyHead, held: number, failure: unknown): NetworkError {
    if (failure === undefined) {
      return new NetworkError(`the download ended after ${held} of ${head.total} bytes`, {
        requestId: res.requestId,
        detail: { partialKept: true },
      });
    }
    if (failure instanceof NetworkError) return failure; // the low-speed rule
    if (failure instanceof SvcError) throw failure; // the sink's own failure (file system)
    return this.#t.networkError(failure, res.url, res.requestId, true);
  }

  #errorFor(res: HttpResponse): Promise<SvcError> {
    const { errorFromResponse } = this.#opts;
    return errorFromResponse ? errorFromResponse(res) : this.#t.errorFromResponse(res);
  }

  #restartFromZero(res: HttpResponse, why: string): void {
    if (++this.#restarts > MAX_RESTARTS) {
      res.body.abort();
      throw new ResponseError(
        `the service kept answering resume requests unusably (${MAX_RESTARTS} restarts from zero): ${why}`,
        { httpStatus: res.status, requestId: res.requestId },
      );
    }
    this.#opts.onNotice?.(`${why}; starting ${this.#opts.label} over`);
    this.#sink.reset(why);
  }

  #restart(res: HttpResponse, why: string): void {
    res.body.abort();
    this.#restartFromZero(res, why);
  }
}
