import { setTimeout as delay } from "node:timers/promises";
import { Agent, type Dispatcher, request } from "undici";
import type { z } from "zod";
import { ApiError } from "../errors/api-error.js";
import { InterruptedError } from "../errors/interrupted-error.js";
import { NetworkError } from "../errors/network-error.js";
import { ResponseError } from "../errors/response-error.js";
import type { SvcError } from "../errors/svc-error.js";
import { discardBody, type ResponseBody, readBodyText } from "./body.js";
import { type Budget, budgetForPath, type Clock, RateLimitPacer } from "./pacer.js";
import { parseRetryAfter } from "./rate-limit-headers.js";
import { redactUrl } from "./redact.js";
import { newRequestId } from "./request-id.js";
import {
  DEFAULT_RETRY,
  type Failure,
  isRetryableStatus,
  RetryBudget,
  type RetrySettings,
} from "./retry.js";
import { ErrorBodySchema } from "./schemas.js";

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** The spec's `{base_url}` (service address, no `/api`). */
  baseUrl: URL;
  /** Returns the API key; called only when a request to the service origin needs one. Throws when none is configured. */
  apiKey: () => string;
  /** `svc-dl/<version>`. */
  userAgent: string;
  /** Injected dispatcher (a `MockAgent` in unit tests); default a keep-alive Agent. */
  dispatcher?: Dispatcher;
  clock?: Clock;
  retry?: Partial<RetrySettings>;
  /** Aborted on SIGINT/SIGTERM; requests and waits then end with InterruptedError. */
  signal?: AbortSignal;
  /** One line per HTTP exchange, for `--verbose`. Never carries a credential. */
  onExchange?: (line: string) => void;
  /** Notices of waits and retries, for stderr. */
  onNotice?: (line: string) => void;
}

/** One request. Headers are lower-case. */
export interface RequestSpec {
  method?: "GET" | "POST";
  url: URL;
  headers?: Record<string, string>;
  /** Request body (only with POST); never re-sent to a redirect target. */
  body?: string;
  /** The rate-limit budget it spends; default from the path (spec "Limits"). */
  budget?: Budget;
  /** Whether to send the API key (only ever to the service origin). Default true. */
  authenticate?: boolean;
  /**
   * Replaces undici's `request()` for requests to other origins than the service (the CDN),
   * unless a dispatcher was injected: the download engine's socket transport.
   */
  transport?: Transport;
}

/** A replacement for undici's `request()` for one request (see {@link RequestSpec.transport}). */
export type Transport = (
  url: URL,
  init: {
    method: "GET" | "POST";
    headers: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
  },
) => Promise<{ statusCode: number; headers: ResponseHeaders; body: unknown }>;

/** A response whose body is still to be read (or discarded) by the caller. */
export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  body: ResponseBody;
  /** The URL that answered (after redirects). */
  url: URL;
  /** The response's `x-request-id`, else the one sent, else null. */
  requestId: string | null;
}

/** Most redirects followed (cli-contract "Downloads"). */
export const MAX_REDIRECTS = 10;
/** Most bytes of an error body read. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Most bytes of a JSON body read. */
const JSON_BODY_LIMIT = 32 * 1024 * 1024;

const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    try {
      await delay(ms, undefined, signal ? { signal } : {});
    } catch (err) {
      // An aborted wait ends the run as the signal says (SIGINT → 130, SIGTERM → 143).
      const reason: unknown = signal?.reason;
      throw reason instanceof InterruptedError ? reason : err;
    }
  },
};

/** First value of a header. */
export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The one HTTP core of svc-dl, on undici (cli-contract "Retries and rate limits",
 * "Downloads"): adds `x-request-id` and `User-Agent` to every request and the API key
 * (`Authorization: Bearer`) only to the service origin; paces by rate-limit headers; follows
 * redirects itself (at most 10, never https→http, a POST body never re-sent); retries 5xx and
 * connection failures with full-jitter backoff and 429 within the wait budget; turns error
 * responses into typed errors.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly serviceOrigin: string;
  readonly pacer: RateLimitPacer;
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  readonly #opts: HttpClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #retry: RetrySettings;

  constructor(opts: HttpClientOptions) {
    this.#opts = opts;
    this.baseUrl = opts.baseUrl;
    this.serviceOrigin = opts.baseUrl.origin;
    this.clock = opts.clock ?? systemClock;
    this.signal = opts.signal;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.#dispatcher =
      opts.dispatcher ??
      new Agent({ connectTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
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

  /** A fresh retry budget for one operation (one JSON call, or one whole download). */
  newRetryBudget(): RetryBudget {
    return new RetryBudget(this.#retry, this.clock, (line) => this.#opts.onNotice?.(line));
  }

  /**
   * One HTTP exchange, no redirects followed, no retries. Paces requests to the service origin
   * by their budget. Throws NetworkError on connection failures, InterruptedError when aborted.
   */
  async exchange(spec: RequestSpec, requestId = newRequestId()): Promise<HttpResponse> {
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
    const started = this.clock.now();
    let res: Pick<Dispatcher.ResponseData, "statusCode" | "headers" | "body">;
    try {
      const init = {
        method,
        headers,
        ...(spec.body !== undefined && method === "POST" ? { body: spec.body } : {}),
        ...(this.signal ? { signal: this.signal } : {}),
      };
      if (spec.transport && !toService && !this.#opts.dispatcher) {
        const direct = await spec.transport(spec.url, init);
        res = { ...direct, body: direct.body as ResponseBody };
      } else {
        res = await request(spec.url, { ...init, dispatcher: this.#dispatcher });
      }
    } catch (err) {
      this.#throwIfAborted();
      this.#log(method, spec.url, "ERR", requestId, started, undefined);
      throw new NetworkError(`could not reach ${spec.url.host}: ${describeNetworkError(err)}`, {
        requestId,
        hint: "Check the network and the base URL; svc-dl retried where it could.",
        cause: err,
      });
    }
    const headersOut = res.headers as ResponseHeaders;
    const remaining = toService ? this.pacer.observe(budget, headersOut) : undefined;
    const responseId = this.#scrub(headerValue(headersOut, "x-request-id") ?? requestId);
    this.#log(method, spec.url, String(res.statusCode), responseId, started, remaining, budget);
    return {
      status: res.statusCode,
      headers: headersOut,
      body: res.body,
      url: spec.url,
      requestId: responseId,
    };
  }

  /**
   * One request with redirects followed by our own rules: at most 10 hops, `https`→`http`
   * refused, 303 (and any redirect of a POST) continues as a GET without the body, every other
   * header (Range, If-Range, If-None-Match) kept, the API key attached only on the service
   * origin. Throws NetworkError `too_many_redirects` / `insecure_redirect` / `bad_redirect`.
   */
  async send(spec: RequestSpec): Promise<HttpResponse> {
    const requestId = newRequestId();
    let current: RequestSpec = spec;
    for (let hop = 0; ; hop++) {
      const res = await this.exchange(current, requestId);
      if (!isRedirect(res.status)) return res;
      const location = headerValue(res.headers, "location");
      discardBody(res.body);
      if (!location) {
        throw new NetworkError(`redirect ${res.status} without a Location header`, {
          code: "bad_redirect",
          httpStatus: res.status,
          requestId: res.requestId,
        });
      }
      if (hop + 1 > MAX_REDIRECTS) {
        throw new NetworkError(`too many redirects (more than ${MAX_REDIRECTS})`, {
          code: "too_many_redirects",
          httpStatus: res.status,
          requestId: res.requestId,
          hint: "The service or its CDN is redirecting in a loop; try again later.",
        });
      }
      let next: URL;
      try {
        next = new URL(location, current.url);
      } catch (err) {
        throw new NetworkError(`redirect to an invalid location`, {
          code: "bad_redirect",
          httpStatus: res.status,
          requestId: res.requestId,
          cause: err,
        });
      }
      if (next.protocol !== "https:" && next.protocol !== "http:") {
        throw new NetworkError(`refusing redirect to ${next.protocol} URL`, {
          code: "bad_redirect",
          httpStatus: res.status,
          requestId: res.requestId,
        });
      }
      if (current.url.protocol === "https:" && next.protocol === "http:") {
        throw new NetworkError(`refusing redirect from https to http (${next.host})`, {
          code: "insecure_redirect",
          httpStatus: res.status,
          requestId: res.requestId,
          hint: "The download would travel unencrypted; report this to the service.",
        });
      }
      const { body: _body, method: _method, ...rest } = current;
      const headers = { ...current.headers };
      delete headers["content-type"];
      delete headers["content-length"];
      current = { ...rest, url: next, method: "GET", headers };
    }
  }

  /**
   * A JSON GET of the API with retries: 5xx and connection failures with backoff, 429 within
   * the wait budget. Validates the body with `schema`. `authenticate: false` sends no API key
   * (keyless public catalog calls). Throws ApiError for the spec's error
   * responses, ResponseError (exit 7) for bodies that break the spec, NetworkError after retries.
   */
  async getJson<S extends z.ZodType>(
    url: URL,
    schema: S,
    opts: { authenticate?: boolean } = {},
  ): Promise<{ body: z.infer<S>; requestId: string | null; headers: ResponseHeaders }> {
    const retries = this.newRetryBudget();
    for (;;) {
      let res: HttpResponse;
      try {
        res = await this.send(opts.authenticate === false ? { url, authenticate: false } : { url });
      } catch (err) {
        await retries.wait(this.failureFromError(err), this.signal);
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        const body = await this.readJson(res, schema);
        return { body, requestId: res.requestId, headers: res.headers };
      }
      const outcome = await this.failureFromResponse(res);
      if ("kind" in outcome) {
        await retries.wait(outcome, this.signal);
        continue;
      }
      throw outcome;
    }
  }

  /** Reads and validates a JSON body. Throws ResponseError (exit 7) on non-JSON or a wrong shape. */
  async readJson<S extends z.ZodType>(res: HttpResponse, schema: S): Promise<z.infer<S>> {
    const { text, truncated } = await readBodyText(res.body, JSON_BODY_LIMIT);
    if (truncated) {
      throw new ResponseError(`response body larger than ${JSON_BODY_LIMIT} bytes`, {
        httpStatus: res.status,
        requestId: res.requestId,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ResponseError(
        `${text.trim() === "" ? "empty response body" : "response body is not valid JSON"} (HTTP ${res.status}, ${describeContent(res.headers, this.#scrub(text))})`,
        { httpStatus: res.status, requestId: res.requestId, cause: err },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`,
      );
      throw new ResponseError(
        `response does not match the spec (${issues.slice(0, 3).join("; ")}${issues.length > 3 ? "; …" : ""})`,
        { httpStatus: res.status, requestId: res.requestId, issues },
      );
    }
    return parsed.data;
  }

  /**
   * Classifies a non-2xx response and consumes its body: a retryable Failure (429, 500, 502,
   * 503, 504) or the final SvcError (ApiError for the spec's error shape, ResponseError for
   * anything else).
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

  /** Reads at most 64 KiB of an error response and builds its typed error. */
  async errorFromResponse(res: HttpResponse): Promise<SvcError> {
    // A server or proxy may echo the Authorization header: never repeat the key in a message.
    const text = this.#scrub((await readBodyText(res.body, ERROR_BODY_LIMIT)).text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = ErrorBodySchema.safeParse(json);
    if (parsed.success) {
      return new ApiError({
        code: parsed.data.error.code,
        message: parsed.data.error.message,
        httpStatus: res.status,
        requestId: parsed.data.error.request_id ?? res.requestId,
      });
    }
    if (res.status >= 500) {
      return new ApiError({
        code: res.status === 500 ? "internal_error" : "server_error",
        message: `server error HTTP ${res.status} (${describeContent(res.headers, text)})`,
        httpStatus: res.status,
        requestId: res.requestId,
      });
    }
    return new ResponseError(
      `unexpected HTTP ${res.status} with ${describeContent(res.headers, text)} instead of the spec's error object`,
      { httpStatus: res.status, requestId: res.requestId },
    );
  }

  /** Classifies a thrown error: InterruptedError passes through, anything else becomes a network Failure. */
  failureFromError(err: unknown): Failure {
    this.#throwIfAborted();
    if (err instanceof NetworkError && err.code === "network_error") {
      return { kind: "network", error: err };
    }
    throw err;
  }

  /** Closes idle connections. */
  async close(): Promise<void> {
    if (!this.#opts.dispatcher) await this.#dispatcher.close();
  }

  /** `text` with the API key (whole, or without its `svc_live_` prefix) replaced by `[API key]`. */
  #scrub(text: string): string {
    let key: string;
    try {
      key = this.#opts.apiKey();
    } catch {
      return text; // no key configured: nothing to hide
    }
    let out = text;
    for (const secret of [key, key.replace(/^svc_live_/, "")]) {
      if (secret.length >= 12) out = out.split(secret).join("[API key]");
    }
    return out;
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
    const parts = [
      method,
      redactUrl(url, this.serviceOrigin),
      status,
      `request-id=${requestId}`,
      `${ms}ms`,
    ];
    if (remaining !== undefined && budget) parts.push(`${budget}-remaining=${remaining}`);
    this.#opts.onExchange(parts.join(" "));
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function describeNetworkError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" ? `${code} ${err.message}` : err.message;
  }
  return String(err);
}

/** A short, sanitised description of a body for messages: its type and a one-line excerpt. */
export function describeContent(headers: ResponseHeaders, text: string): string {
  const type = headerValue(headers, "content-type")?.split(";")[0]?.trim() || "no content type";
  const excerpt = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  return excerpt ? `${type}: "${excerpt}"` : type;
}
