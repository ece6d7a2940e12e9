import { Dispatcher } from "undici";
import { isLoopbackHost } from "../config/base-url.js";
import { noProxyMatcher } from "./no-proxy.js";

/** The proxy set-up resolved from flag/env: lower-case variables win, as in curl. "" means none. */
export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/**
 * Which proxy a request to `url` goes through, or undefined to go direct (cli-contract
 * "Networks", "Untrusted text, paths and caches"): direct when `NO_PROXY` matches (see
 * {@link noProxyMatcher}); `https` through the https proxy (a `CONNECT` tunnel: the proxy never
 * sees the key); plain `http` (allowed for loopback origins only) through the http proxy only
 * when that proxy is itself on loopback (`localhost`, `127.0.0.0/8`, `[::1]`), else direct,
 * because the request and its `Authorization` header would cross the proxy in clear text.
 */
export function proxyFor(
  proxy: ProxySettings,
  url: URL,
  bypass: (url: URL) => boolean = noProxyMatcher(proxy.noProxy),
): string | undefined {
  const chosen = url.protocol === "https:" ? proxy.httpsProxy : proxy.httpProxy;
  if (chosen === "" || bypass(url)) return undefined;
  if (url.protocol !== "https:" && !isLoopbackHost(new URL(chosen).hostname)) return undefined;
  return chosen;
}

/**
 * The run's dispatcher when a proxy is set: sends each request through the dispatcher
 * `through(proxyUrl)` of the proxy {@link proxyFor} picks for its origin, or `direct`. Closing
 * or destroying it closes every dispatcher it made.
 */
export class ProxyRouter extends Dispatcher {
  readonly #direct: Dispatcher;
  readonly #proxy: ProxySettings;
  readonly #bypass: (url: URL) => boolean;
  readonly #through: (proxyUrl: string) => Dispatcher;
  readonly #proxies = new Map<string, Dispatcher>();

  constructor(proxy: ProxySettings, direct: Dispatcher, through: (proxyUrl: string) => Dispatcher) {
    super();
    this.#proxy = proxy;
    this.#direct = direct;
    this.#through = through;
    this.#bypass = noProxyMatcher(proxy.noProxy);
  }

  override dispatch(
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
  ): boolean {
    const proxyUrl = proxyFor(this.#proxy, new URL(String(options.origin)), this.#bypass);
    if (proxyUrl === undefined) return this.#direct.dispatch(options, handler);
    let agent = this.#proxies.get(proxyUrl);
    if (!agent) {
      agent = this.#through(proxyUrl);
      this.#proxies.set(proxyUrl, agent);
    }
    return agent.dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | undefined {
    return this.#all((d) => d.close(), callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(
    errOrCallback?: Error | null | (() => void),
    callback?: () => void,
  ): Promise<void> | undefined {
    const err = typeof errOrCallback === "function" ? null : (errOrCallback ?? null);
    const done = typeof errOrCallback === "function" ? errOrCallback : callback;
    return this.#all((d) => d.destroy(err), done);
  }

  #all(
    each: (d: Dispatcher) => Promise<void>,
    callback: (() => void) | undefined,
  ): Promise<void> | undefined {
    const done = Promise.all([this.#direct, ...this.#proxies.values()].map(each)).then(
      () => undefined,
    );
    if (!callback) return done;
    done.then(callback, callback);
    return undefined;
  }
}
