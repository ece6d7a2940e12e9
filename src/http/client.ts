import { ApiError } from "../errors/api-error.js";
import { NetworkError } from "../errors/network-error.js";
import { SvcError } from "../errors/svc-error.js";
import type * as z from "../io/schema.js";
import { isRetryableNetworkError } from "./classify.js";
import { HttpExchange } from "./exchange.js";
import { parseRetryAfter } from "./rate-limit-headers.js";
import type { HttpResponse } from "./request-types.js";
import { headerValue, type ResponseHeaders } from "./response-body.js";
import { errorFromBody, parseJsonBody } from "./response-errors.js";
import { type Failure, isRetryableStatus } from "./retry.js";
import { notFoundUnderBase } from "./route-not-found.js";

export { MAX_REDIRECTS } from "./redirects.js";
export type { HttpClientOptions, HttpResponse, RequestSpec } from "./request-types.js";
export type { ResponseHeaders } from "./response-body.js";
export { headerValue } from "./response-body.js";
export { describeContent } from "./response-errors.js";

/** Most bytes of an error body read. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Most bytes of a JSON body read. */
const JSON_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * The one HTTP client of svc-dl (cli-contract "Retries and rate limits", "Downloads",
 * "Networks"): the sending half is {@link HttpExchange} (request ids, the key only to the
 * service origin, URL scheme rules, pacing, redirects, the body fast path, redaction); this half
 * reads answers: one retry policy for JSON calls (5xx, connection failures and silence with
 * full-jitter backoff, bad framing retried once, at most 4 silent attempts; 429 within the wait
 * budget; certificate and DNS failures at once), and error responses turned into typed errors.
 * It satisfies the download's narrow `Transport` (src/download/transport.ts).
 */
export class HttpClient extends HttpExchange {
  /**
   * A JSON GET of the API with retries: 5xx, connection failures (also while the body is read),
   * silence and bad framing with backoff, 429 within the wait budget. Validates the body with
   * `schema`. `authenticate: false` sends no API key (keyless public catalog calls); `signal`
   * limits the call besides the run's signal (see `RequestSpec.signal`). Throws
   * ApiError for the spec's error responses, ResponseError (exit 7) for bodies that break the
   * spec, NetworkError after retries (at once for certificate and DNS failures).
   */
  async getJson<S extends z.core.$ZodType>(
    url: URL,
    schema: S,
    opts: { authenticate?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ body: z.output<S>; requestId: string | null; headers: ResponseHeaders }> {
    const retries = this.newRetryBudget();
    for (;;) {
      try {
        const res = await this.send({
          url,
          ...(opts.authenticate === false ? { authenticate: false } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        if (res.status >= 200 && res.status < 300) {
          const body = await this.readJson(res, schema);
          return { body, requestId: res.requestId, headers: res.headers };
        }
        const outcome = await this.failureFromResponse(res);
        if (!("kind" in outcome)) throw outcome;
        await retries.wait(outcome, this.signal);
      } catch (err) {
        if (err instanceof SvcError && !(err instanceof NetworkError)) throw err;
        await retries.wait(this.failureFromError(err), this.signal);
      }
    }
  } /**
   * Reads a body as text (at most `limit` bytes). A transfer failure becomes the classified
   * NetworkError (retryable by policy).
   */
  async readText(res: HttpResponse, limit: number): Promise<{ text: string; truncated: boolean }> {
    try {
      return await res.body.text(limit);
    } catch (err) {
      this.throwIfAborted();
      throw this.networkError(err, res.url, res.requestId, true);
    }
  } /** Reads and validates a JSON body. Throws ResponseError (exit 7) on non-JSON or a wrong shape, NetworkError when the transfer fails. */
  async readJson<S extends z.core.$ZodType>(res: HttpResponse, schema: S): Promise<z.output<S>> {
    const body = await this.readText(res, JSON_BODY_LIMIT);
    return parseJsonBody(res, { ...body, limit: JSON_BODY_LIMIT }, schema, (t) =>
      this.redactor.text(t),
    );
  } /**
   * Classifies a non-2xx response and consumes its body: a retryable Failure (429, 500, 502,
   * 503, 504) or the final SvcError (ApiError for the spec's error shape, ResponseError for
   * anything else). Throws NetworkError when the error body's transfer fails (retryable).
   */
  async failureFromResponse(res: HttpResponse): Promise<Failure | SvcError> {
    const error = await this.errorFromResponse(res);
    const retryAfterSeconds = parseRetryAfter(
      headerValue(res.headers, "retry-after"),
      this.clock.now(),
    );
    if (res.status === 429) return { kind: "rate_limited", error, retryAfterSeconds };
    if (isRetryableStatus(res.status)) return { kind: "server", error, retryAfterSeconds };
    return error;
  } /**
   * Reads at most 64 KiB of an error response and builds its typed error (see `errorFromBody`);
   * a 404 of the service is reported against the base URL (see {@link notFoundUnderBase}).
   */
  async errorFromResponse(res: HttpResponse): Promise<SvcError> {
    const { text } = await this.readText(res, ERROR_BODY_LIMIT);
    const body = errorFromBody(res, this.redactor.text(text));
    const err =
      res.status === 404
        ? notFoundUnderBase(body, res.url, this.baseUrl, this.options.baseUrlSource)
        : body;
    const explain = this.options.explainApiError;
    return explain && err instanceof ApiError ? explain(err) : err;
  } /**
   * Classifies a thrown error for the retry policy: InterruptedError passes through, retryable
   * NetworkErrors (connection, silence, framing) become a `network` Failure; certificate and
   * DNS failures and everything else are thrown at once.
   */
  failureFromError(err: unknown): Failure {
    this.throwIfAborted();
    if (err instanceof NetworkError && isRetryableNetworkError(err)) {
      return { kind: "network", error: err };
    }
    throw err;
  }
}
