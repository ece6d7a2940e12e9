import type { Dispatcher } from "undici";
import { systemClock } from "../clock.js";
import { interruptedBy } from "../errors/interrupted-error.js";
import type { NetworkError } from "../errors/network-error.js";
import { SvcError } from "../errors/svc-error.js";
import type { Clock } from "../model.js";
import type { TransferPacing } from "../pacing/transfer.js";
import { networkErrorFrom } from "./classify.js";
import { dispatchRequest } from "./dispatch-request.js";
import {
  createDispatcher,
  IDLE_TIMEOUT_MS,
  LOW_SPEED_LIMIT,
  type LowSpeedLimit,
  type ProxySettings,
  proxyLabel,
} from "./dispatcher.js";
import { type Budget, budgetForPath, RateLimitPacer } from "./pacer.js";
import { learnBodySecrets, learnProxyPassword, Redactor } from "./redact.js";
import { followRedirects } from "./redirects.js";
import { newRequestId } from "./request-id.js";
import type { HttpClientOptions, HttpResponse, RequestSpec } from "./request-types.js";
import { type BodyTransport, headerValue } from "./response-body.js";
import { DEFAULT_RETRY, RetryBudget, type RetrySettings } from "./retry.js";
import { StalledOrigins } from "./stalls.js";
import type { TlsTrust } from "./tls-trust.js";
import { checkRequestUrl } from "./url-policy.js";

/** Longest graceful close of the connections at the end of a run, in ms. */
const CLOSE_GRACE_MS = 2000;

/**
 * The sending half of {@link HttpClient} (src/http/client.ts), on one undici dispatcher per run
 * (cli-contract "Retries and rate limits", "Downloads", "Networks"): adds `x-request-id` and
 * `User-Agent` to every request and the API key (`Authorization: Bearer`) only to the service
 * origin; checks every URL against the scheme rules before sending; paces by rate-limit
 * headers; follows redirects itself; sends download GETs to the CDN through the body fast path
 * (src/http/fast-body/) when no proxy is set; one redactor for everything it prints. Its abort (the run's signal) is
 * always an InterruptedError.
 */
export class HttpExchange {
  readonly baseUrl: URL;
  readonly serviceOrigin: string;
  readonly pacer: RateLimitPacer;
  readonly clock: Clock;
  /** The run's abort signal: every request and wait of this client ends with InterruptedError. */
  readonly signal: AbortSignal | undefined;
  /** `--limit-rate` and `--max-duration` of download bodies, when set. */
  readonly transferPacing: TransferPacing | undefined;
  /** Low-speed limit of body transfers (the download's state machine enforces it). */
  readonly lowSpeed: LowSpeedLimit;
  /** Scrubs secrets from text and URLs (see {@link Redactor}). */
  readonly redactor: Redactor;
  protected readonly options: HttpClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #proxy: ProxySettings | undefined;
  readonly #trust: TlsTrust | undefined;
  readonly #retry: RetrySettings;
  #bodyTransport: Promise<BodyTransport> | undefined;
  /** CDN origins that stalled in this run (src/http/stalls.ts). */
  readonly #stalls: StalledOrigins;

  constructor(opts: HttpClientOptions) {
    this.options = opts;
    this.baseUrl = opts.baseUrl;
    this.serviceOrigin = opts.baseUrl.origin;
    this.clock = opts.clock ?? systemClock;
    this.signal = opts.signal;
    this.transferPacing = opts.transferPacing;
    this.#retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.lowSpeed = opts.network?.lowSpeed ?? LOW_SPEED_LIMIT;
    this.redactor = new Redactor(this.serviceOrigin);
    this.#stalls = new StalledOrigins((line) => opts.onNotice?.(this.redactor.text(line)));
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
      this.#trust = built.trust;
      // Proxy credentials are never printed (cli-contract "Networks").
      for (const proxy of [built.proxy.httpProxy, built.proxy.httpsProxy]) {
        learnProxyPassword(this.redactor, proxy);
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

  /** A fresh retry budget for one operation (one JSON call, or one whole download). */
  newRetryBudget(): RetryBudget {
    return new RetryBudget(
      this.#retry,
      this.clock,
      (line) => this.options.onNotice?.(this.redactor.text(line)),
      (error) => this.#stalls.gaveUp(error),
    );
  }

  /**
   * One HTTP exchange, no redirects followed, no retries. Checks the URL's scheme, paces
   * requests to the service origin by their budget. Throws NetworkError (classified: see
   * {@link networkErrorFrom}) when no response head arrives, InterruptedError when aborted.
   */
  async exchange(spec: RequestSpec, requestId = newRequestId()): Promise<HttpResponse> {
    checkRequestUrl(spec.url, this.baseUrl);
    if (this.options.offline) throw offlineError(this.redactor.url(spec.url));
    const method = spec.method ?? "GET";
    const toService = spec.url.origin === this.serviceOrigin;
    const budget = spec.budget ?? budgetForPath(spec.url.pathname);
    if (toService) await this.pacer.beforeRequest(budget, this.signal);
    const stalled = toService ? undefined : this.#stalls.refusal(spec.url, requestId);
    if (stalled) throw stalled;
    const headers: Record<string, string> = {
      ...spec.headers,
      "user-agent": this.options.userAgent,
      "x-request-id": requestId,
    };
    if (toService && spec.authenticate !== false) {
      headers.authorization = `Bearer ${this.options.apiKey()}`;
    }
    if (spec.body !== undefined) learnBodySecrets(this.redactor, spec.body);
    const started = this.clock.now();
    let res: Awaited<ReturnType<typeof dispatchRequest>>;
    const init = {
      url: spec.url,
      method,
      headers,
      ...(spec.body !== undefined && method === "POST" ? { body: spec.body } : {}),
      ...(signalOf(this.signal, spec.signal) ?? {}),
    };
    try {
      const fast = budget === "download" && !toService ? await this.#fastBody() : undefined;
      res = (await fast?.request(init)) ?? (await dispatchRequest(this.#dispatcher, init));
    } catch (err) {
      this.throwIfAborted();
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
    const error = networkErrorFrom(err, {
      url,
      requestId: requestId ?? "",
      proxy: this.#proxy ? proxyLabel(this.#proxy, url) : undefined,
      service: { url: this.baseUrl, source: this.options.baseUrlSource },
      scrub: (text) => this.redactor.text(text),
      duringBody,
    });
    if (error.code === "timeout" && url.origin !== this.serviceOrigin) {
      this.#stalls.noteSilence(error, url.origin);
    }
    return error;
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
   * Closes the run's connections: gracefully, or at once after 2 s (a response nobody read
   * must not hold the process); at once when the run was interrupted.
   */
  async close(): Promise<void> {
    (await this.#bodyTransport?.catch(() => undefined))?.close();
    if (this.options.dispatcher) return;
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

  /** The one place this client's abort becomes an error: the signal's InterruptedError. */
  protected throwIfAborted(): void {
    if (this.signal?.aborted) throw interruptedBy(this.signal);
  }

  /**
   * The body fast path (src/http/fast-body/, loaded on first use: a run without downloads never
   * reads it) for download GETs to another origin than the service's, only when no proxy is set
   * and the dispatcher is the client's own; else undefined (undici).
   */
  #fastBody(): Promise<BodyTransport> | undefined {
    const proxy = this.#proxy;
    const trust = this.#trust;
    if (!proxy || !trust || proxy.httpProxy !== "" || proxy.httpsProxy !== "") return undefined;
    const network = this.options.network ?? { env: {} };
    this.#bodyTransport ??= import("./fast-body/transport.js").then(({ createFastBodyTransport }) =>
      createFastBodyTransport({
        secureContext: () => trust.secureContext(),
        lookup: network.lookup,
        idleMs: network.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      }),
    );
    return this.#bodyTransport;
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
    if (!this.options.onExchange) return;
    const ms = this.clock.now() - started;
    const parts = [method, this.redactor.url(url), status, `request-id=${requestId}`, `${ms}ms`];
    if (remaining !== undefined && budget) parts.push(`${budget}-remaining=${remaining}`);
    this.options.onExchange(this.redactor.text(parts.join(" ")));
  }
}

/** The signal of one request: the run's, and the request's own time limit when it has one. */
function signalOf(
  run: AbortSignal | undefined,
  own: AbortSignal | undefined,
): { signal: AbortSignal } | undefined {
  if (run && own) return { signal: AbortSignal.any([run, own]) };
  const one = run ?? own;
  return one ? { signal: one } : undefined;
}

/**
 * The refusal of a request under `--offline` (cli-contract "Manifest, lock and cache"):
 * SvcError `offline` (exit 8), naming what would have been fetched.
 */
function offlineError(url: string): SvcError {
  return new SvcError(
    `the network is needed (${url}) but --offline (or SVC_DL_OFFLINE=1) forbids any connection`,
    { code: "offline" },
  );
}
