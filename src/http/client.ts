import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { TransferPacing } from "../download/rate-limit.js";
import { ApiError } from "../errors/api-error.js";
import { InterruptedError } from "../errors/interrupted-error.js";
import { NetworkError } from "../errors/network-error.js";
import { SvcError } from "../errors/svc-error.js";
import type { Clock } from "../model.js";
import { isRetryableNetworkError, networkErrorFrom } from "./classify.js";
import {
  createDispatcher,
  IDLE_TIMEOUT_MS,
  LOW_SPEED_LIMIT,
  type LowSpeedLimit,
  type ProxySettings,
  proxyLabel,
  trustedCas,
} from "./dispatcher.js";
import { type Budget, budgetForPath, RateLimitPacer } from "./pacer.js";
import { parseRetryAfter } from "./rate-limit-headers.js";
import { Redactor } from "./redact.js";
import { followRedirects } from "./redirects.js";
import { newRequestId } from "./request-id.js";
import type { HttpClientOptions, HttpResponse, RequestSpec } from "./request-types.js";
import {
  type BodyTransport,
  type BodyTransportSettings,
  dispatchRequest,
  headerValue,
  type ResponseHeaders,
} from "./response-body.js";
import { errorFromBody, parseJsonBody } from "./response-errors.js";
import {
  DEFAULT_RETRY,
  type Failure,
  isRetryableStatus,
  RetryBudget,
  type RetrySettings,
} from "./retry.js";
import { notFoundUnderBase } from "./route-not-found.js";
import { systemClock } from "./system-clock.js";
import { checkRequestUrl } from "./url-policy.js";

export { MAX_REDIRECTS } from "./redirects.js";
export type { HttpClientOptions, HttpResponse, RequestSpec } from "./request-types.js";
export type { ResponseHeaders } from "./response-body.js";

/** Most bytes of an error body read. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Longest graceful close of the connections at the end of a run, in ms. */
const CLOSE_GRACE_MS = 2000;
/** Most bytes of a JSON body read. */
const JSON_BODY_LIMIT = 32 * 1024 * 1024;

export { headerValue } from "./response-body.js";
export { describeContent } from "./response-errors.js";

/**
 * The one HTTP client of svc-dl, on one undici dispatcher per run (cli-contract "Retries and
 * rate limits", "Downloads", "Networks"): adds `x-request-id` and `User-Agent` to every request
 * and the API key (`Authorization: Bearer`) only to the service origin; checks every URL
 * against the scheme rules before sending; paces by rate-limit headers; follows redirects
 * itself (at most 10, never https→http, a POST body never re-sent); one retry policy (5xx,
 * connection failures and silence with full-jitter backoff, bad framing retried once, at most 4
 * silent attempts; 429 within the wait budget; certificate and DNS failures at once); turns error responses into typed errors; one
 * redactor for everything it prints.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly serviceOrigin: string;
  readonly pacer: RateLimitPacer;
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  /** `--limit-rate` and `--max-duration` of download bodies, when set. */
  readonly transferPacing: TransferPacing | undefined;
  /** Low-speed limit of body transfers (the download's state machine enforces it). */
  readonly lowSpeed: LowSpeedLimit;
  /** Scrubs secrets from text and URLs (see {@link Redactor}). */
  readonly redactor: Redactor;
  readonly #opts: HttpClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #proxy: ProxySettings | undefined;
  readonly #retry: RetrySettings;
  #bodyTransport: BodyTransport | undefined;

  constructor(opts: HttpClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl;
    this.serviceOrigin = opts.baseUrl.origin;
    this.clock = opts.clock ?? systemClock;
    this.signal = opts.signal;
    this.transferPacing = opts.transferPacing;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.lowSpeed = opts.network?.lowSpeed ?? LOW_SPEED_LIMIT;
    this.redactor = new Redactor(this.serviceOrigin);
    try {
      this.redactor.addSecret(opts.apiKey());
    } catch {
      // no key configured: nothing to hide yet
    }
    if (opts.dispatcher) {
      this.#dispatcher = opts.dispatcher;
    } else {
      const built = createDispatcher(opts.network ?? { env: {} });
      this.#dispatcher = built.dispatcher;
      this.#proxy = built.proxy;
      // Proxy credentials are never printed (cli-contract "Networks").
      for (const proxy of [built.proxy.httpProxy, built.proxy.httpsProxy]) {
        this.#learnProxyCredentials(proxy);
      }
    }
    this.pacer = new RateLimitPacer(
      this.clock,
      (budget, waitMs) => {
        opts.onNotice?.(
          `rate limit: ${budget} budget spent; waiting ${Math.ceil(waitMs / 1000)}s for it to reset`,
        );
      },
      { maxWaitMs: this.#retry.maxWaitSeconds * 1000 },
    );
  }

  /** `{base_url}/api/v1/<path>` with optional query parameters. */
  apiUrl(path: string, query: Record<string, string | number | undefined> = {}): URL {
    const base = this.baseUrl.href.replace(/\/+$/, "");
    const url = new URL(`${base}/api/v1/${path.replace(/^\/+/, "")}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** `{base_url}/<path>` (for the legacy endpoint outside `/api/v1`). */
  serviceUrl(path: string): URL {
    const base = this.baseUrl.href.replace(/\/+$/, "");
    return new URL(`${base}/${path.replace(/^\/+/, "")}`);
  }

  /**
   * Lets download GETs to another origin than the service's use `make`'s transport instead of
   * undici (the body fast path, src/download/fast-body/), only when no proxy is set and the
   * dispatcher is the client's own. Idempotent.
   */
  useBodyTransport(make: (settings: BodyTransportSettings) => BodyTransport): void {
    const proxy = this.#proxy;
    if (this.#bodyTransport || !proxy || proxy.httpProxy !== "" || proxy.httpsProxy !== "") return;
    const network = this.#opts.network ?? { env: {} };
    this.#bodyTransport = make({
      ca: trustedCas(network),
      lookup: network.lookup,
      idleMs: network.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    });
  }

  /** A fresh retry budget for one operation (one JSON call, or one whole download). */
  newRetryBudget(): RetryBudget {
    return new RetryBudget(this.#retry, this.clock, (line) =>
      this.#opts.onNotice?.(this.redactor.text(line)),
    );
  }

  /**
   * One HTTP exchange, no redirects followed, no retries. Checks the URL's scheme, paces
   * requests to the service origin by their budget. Throws NetworkError (classified: see
   * {@link networkErrorFrom}) when no response head arrives, InterruptedError when aborted.
   */
  async exchange(spec: RequestSpec, requestId = newRequestId()): Promise<HttpResponse> {
    checkRequestUrl(spec.url, this.baseUrl);
    const method = spec.method ?? "GET";
    const toService = spec.url.origin === this.serviceOrigin;
    const budget = spec.budget ?? budgetForPath(spec.url.pathname);
    if (toService) await this.pacer.beforeRequest(budget, this.signal);
    const headers: Record<string, string> = {
      ...spec.headers,
      "user-agent": this.#opts.userAgent,
      "x-request-id": requestId,
    };
    if (toService && spec.authenticate !== false) {
      headers.authorization = `Bearer ${this.#opts.apiKey()}`;
    }
    if (spec.body !== undefined) this.#learnSecrets(spec.body);
    const started = this.clock.now();
    let res: Awaited<ReturnType<typeof dispatchRequest>>;
    const init = {
      url: spec.url,
      method,
      headers,
      ...(spec.body !== undefined && method === "POST" ? { body: spec.body } : {}),
      ...(this.signal ? { signal: this.signal } : {}),
    };
    const fast = budget === "download" && !toService ? this.#bodyTransport : undefined;
    try {
      res = (await fast?.request(init)) ?? (await dispatchRequest(this.#dispatcher, init));
    } catch (err) {
      this.#throwIfAborted();
      this.#log(method, spec.url, "ERR", requestId, started, undefined);
      throw this.networkError(err, spec.url, requestId);
    }
    const remaining = toService ? this.pacer.observe(budget, res.headers) : undefined;
    const received = headerValue(res.headers, "x-request-id");
    const responseId = this.redactor.text(received ?? requestId).slice(0, 128);
    this.#log(method, spec.url, String(res.statusCode), responseId, started, remaining, budget);
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      url: spec.url,
      requestId: responseId,
    };
  }

  /** The classified NetworkError of a failed transfer to `url` (see {@link networkErrorFrom}). */
  networkError(err: unknown, url: URL, requestId: string | null, duringBody = false): NetworkError {
    return networkErrorFrom(err, {
      url,
      requestId: requestId ?? "",
      proxy: this.#proxy ? proxyLabel(this.#proxy, url) : undefined,
      service: { url: this.baseUrl, source: this.#opts.baseUrlSource },
      scrub: (text) => this.redactor.text(text),
      duringBody,
    });
  }

  /**
   * One request with redirects followed by our own rules: at most 10 hops, every Location
   * checked against the scheme rules (https→http refused), 303 (and any redirect of a POST)
   * continues as a GET without the body, every other header (Range, If-Range, If-None-Match)
   * kept, the API key attached only on the service origin. Throws NetworkError
   * `too_many_redirects` / `insecure_redirect` / `bad_redirect` / `insecure_url`.
   */
  async send(spec: RequestSpec): Promise<HttpResponse> {
    const requestId = newRequestId();
    return followRedirects(spec, (current) => this.exchange(current, requestId), this.baseUrl);
  }

  /**
   * A JSON GET of the API with retries: 5xx, connection failures (also while the body is read),
   * silence and bad framing with backoff, 429 within the wait budget. Validates the body with
   * `schema`. `authenticate: false` sends no API key (keyless public catalog calls). Throws
   * ApiError for the spec's error responses, ResponseError (exit 7) for bodies that break the
   * spec, NetworkError after retries (at once for certificate and DNS failures).
   */
  async getJson<S extends z.ZodType>(
    url: URL,
    schema: S,
    opts: { authenticate?: boolean } = {},
  ): Promise<{ body: z.infer<S>; requestId: string | null; headers: ResponseHeaders }> {
    const retries = this.newRetryBudget();
    for (;;) {
      try {
        const res = await this.send(
          opts.authenticate === false ? { url, authenticate: false } : { url },
        );
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
  }

  /**
   * Reads a body as text (at most `limit` bytes). A transfer failure becomes the classified
   * NetworkError (retryable by policy).
   */
  async readText(res: HttpResponse, limit: number): Promise<{ text: string; truncated: boolean }> {
    try {
      return await res.body.text(limit);
    } catch (err) {
      this.#throwIfAborted();
      throw this.networkError(err, res.url, res.requestId, true);
    }
  }

  /** Reads and validates a JSON body. Throws ResponseError (exit 7) on non-JSON or a wrong shape, NetworkError when the transfer fails. */
  async readJson<S extends z.ZodType>(res: HttpResponse, schema: S): Promise<z.infer<S>> {
    const body = await this.readText(res, JSON_BODY_LIMIT);
    return parseJsonBody(res, { ...body, limit: JSON_BODY_LIMIT }, schema, (t) =>
      this.redactor.text(t),
    );
  }

  /**
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
  }

  /**
   * Reads at most 64 KiB of an error response and builds its typed error (see `errorFromBody`);
   * a 404 of the service is reported against the base URL (see {@link notFoundUnderBase}).
   */
  async errorFromResponse(res: HttpResponse): Promise<SvcError> {
    const { text } = await this.readText(res, ERROR_BODY_LIMIT);
    const body = errorFromBody(res, this.redactor.text(text));
    const err =
      res.status === 404
        ? notFoundUnderBase(body, res.url, this.baseUrl, this.#opts.baseUrlSource)
        : body;
    const explain = this.#opts.explainApiError;
    return explain && err instanceof ApiError ? explain(err) : err;
  }

  /**
   * Classifies a thrown error for the retry policy: InterruptedError passes through, retryable
   * NetworkErrors (connection, silence, framing) become a `network` Failure; certificate and
   * DNS failures and everything else are thrown at once.
   */
  failureFromError(err: unknown): Failure {
    this.#throwIfAborted();
    if (err instanceof NetworkError && isRetryableNetworkError(err)) {
      return { kind: "network", error: err };
    }
    throw err;
  }

  /**
   * Closes the run's connections: gracefully, or at once after 2 s (a response nobody read
   * must not hold the process); at once when the run was interrupted.
   */
  async close(): Promise<void> {
    this.#bodyTransport?.close();
    if (this.#opts.dispatcher) return;
    const dispatcher = this.#dispatcher;
    // Interrupted: nothing is worth waiting for (a connection may still be in a proxy's CONNECT).
    if (this.signal?.aborted) {
      await dispatcher.destroy().catch(() => undefined);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), CLOSE_GRACE_MS);
      timer.unref();
    });
    const outcome = await Promise.race([dispatcher.close().catch(() => undefined), late]);
    clearTimeout(timer);
    if (outcome === "late") await dispatcher.destroy().catch(() => undefined);
  }

  /** The password of a proxy URL becomes a secret of the redactor. */
  #learnProxyCredentials(proxy: string): void {
    if (proxy === "") return;
    try {
      const url = new URL(proxy);
      if (url.password)
        this.redactor.addSecret(decodeURIComponent(url.password), "[proxy password]");
    } catch {
      // an invalid proxy URL was refused when the dispatcher was built
    }
  }

  /** A license key in a JSON request body becomes a secret of the redactor. */
  #learnSecrets(body: string): void {
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      for (const [name, value] of Object.entries(json)) {
        if (typeof value === "string" && /key|token|secret/i.test(name)) {
          this.redactor.addSecret(value);
        }
      }
    } catch {
      // not JSON: nothing to learn
    }
  }

  #throwIfAborted(): void {
    if (this.signal?.aborted) {
      const reason: unknown = this.signal.reason;
      throw reason instanceof InterruptedError ? reason : new InterruptedError("SIGINT");
    }
  }

  #log(
    method: string,
    url: URL,
    status: string,
    requestId: string,
    started: number,
    remaining: number | undefined,
    budget?: Budget,
  ): void {
    if (!this.#opts.onExchange) return;
    const ms = this.clock.now() - started;
    const parts = [method, this.redactor.url(url), status, `request-id=${requestId}`, `${ms}ms`];
    if (remaining !== undefined && budget) parts.push(`${budget}-remaining=${remaining}`);
    this.#opts.onExchange(this.redactor.text(parts.join(" ")));
  }
}
