import type { LookupFunction } from "node:net";
import { resolve } from "node:path";
import { Agent, buildConnector, type Dispatcher, Pool, ProxyAgent } from "undici";
import { UsageError } from "../errors/usage-error.js";
import { guardedConnector } from "./connection-guards.js";
import { ProxyRouter, type ProxySettings, proxyFor } from "./proxy-route.js";
import { tunnelClientFactory } from "./proxy-tunnel.js";
import { type TlsTrust, tlsTrust } from "./tls-trust.js";

export type { ProxySettings } from "./proxy-route.js";

/**
 * Longest silence (ms) while connecting, waiting for a response head, or between body bytes,
 * before an attempt is abandoned and retried (cli-contract "Networks": 30 seconds).
 */
export const IDLE_TIMEOUT_MS = 30_000;

/**
 * Low-speed limit of a body transfer (cli-contract "Networks": a server that never finishes its
 * body cannot hold a run for more than a few minutes): an attempt that receives fewer than
 * `bytes` in a window of `windowMs` is abandoned and retried, as curl's `--speed-limit 1024
 * --speed-time 60` does. A trickle never gains the bytes that forgive a retry, so the retry
 * budget ends it.
 */
export interface LowSpeedLimit {
  /** Fewest bytes per window. */
  bytes: number;
  /** Window length in ms. */
  windowMs: number;
}

/** Default {@link LowSpeedLimit}: 1 KiB/s averaged over 60 s. */
export const LOW_SPEED_LIMIT: LowSpeedLimit = { bytes: 60 * 1024, windowMs: 60_000 };

/** Network settings of one run (cli-contract "Configuration", "Networks"). */
export interface NetworkSettings {
  /** `--proxy` or config `proxy`: one proxy for http and https. Overrides the proxy env vars. */
  proxy?: string | undefined;
  /** `--ca-file`, `SVC_CA_FILE` or config `ca-file`: extra trusted CA certificates (PEM). */
  caFile?: string | undefined;
  /** The environment (proxy variables, `NODE_EXTRA_CA_CERTS`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Silence limit in ms; default {@link IDLE_TIMEOUT_MS} (tests shorten it). */
  idleTimeoutMs?: number;
  /** Low-speed limit of body transfers; default {@link LOW_SPEED_LIMIT} (tests shorten it). */
  lowSpeed?: LowSpeedLimit;
  /** Host-name resolution of every connection, origins and proxies; default the system's. */
  lookup?: LookupFunction;
}

/** Resolves the proxies: `--proxy`/config for both schemes, else `https_proxy`/`HTTPS_PROXY`, `http_proxy`/`HTTP_PROXY`; `no_proxy`/`NO_PROXY`. "" means none. */
export function proxySettings(settings: Pick<NetworkSettings, "proxy" | "env">): ProxySettings {
  const { env } = settings;
  const pick = (lower: string, upper: string): string =>
    (env[lower]?.trim() || env[upper]?.trim()) ?? "";
  const explicit = settings.proxy?.trim() ?? "";
  const httpProxy = explicit || pick("http_proxy", "HTTP_PROXY");
  const httpsProxy = explicit || pick("https_proxy", "HTTPS_PROXY") || httpProxy;
  for (const value of [httpProxy, httpsProxy]) {
    if (value === "") continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new UsageError("invalid proxy address (from --proxy, the config or *_PROXY)", {
        code: "invalid_proxy",
      });
    }
  }
  return { httpProxy, httpsProxy, noProxy: pick("no_proxy", "NO_PROXY") };
}

/** The proxy in use for `url` (see {@link proxyFor}) as printable text (no credentials), or undefined. */
export function proxyLabel(proxy: ProxySettings, url: URL): string | undefined {
  const value = proxyFor(proxy, url);
  if (value === undefined) return undefined;
  try {
    const p = new URL(value);
    return `${p.protocol}//${p.host}`;
  } catch {
    return undefined;
  }
}

/**
 * The one dispatcher of a run (cli-contract "Networks"): keep-alive connections per origin
 * (a sync reuses connections and TLS sessions), every request API and CDN alike through the
 * proxy {@link proxyFor} picks when one is set (`NO_PROXY` honoured, CIDR blocks included; https
 * through a `CONNECT` tunnel, so the proxy never sees the key; plain http only through a
 * loopback proxy), the run's {@link TlsTrust} for TLS connections (its one SecureContext, built
 * at the first https origin or the first request through a proxy), a silence limit of 30 s
 * while connecting, for the head and between body bytes, and the connection guards on every
 * connection (src/http/connection-guards.ts: interim answers skipped, a body paused at the
 * connection's end finished). Throws UsageError (exit 2)
 * `invalid_proxy` / `invalid_ca_file`.
 */
export function createDispatcher(settings: NetworkSettings): {
  dispatcher: Dispatcher;
  proxy: ProxySettings;
  trust: TlsTrust;
} {
  const proxy = proxySettings(settings);
  const trust = tlsTrust(settings);
  const idle = settings.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const common = {
    // one request at a time per connection: src/http/interim-answers.ts relies on it
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: idle,
    bodyTimeout: idle,
    connectTimeout: idle,
    maxResponseSize: -1,
  };
  const lookup = settings.lookup ? { lookup: settings.lookup } : {};
  const direct = new Agent({
    ...common,
    connect: lookup,
    // undici's own factory (a Pool per origin), with the context for an https origin and
    // the connection guards (interim answers, a paused body at the end) on every connection
    factory: (origin, opts: Pool.Options) => {
      const secureContext =
        new URL(String(origin)).protocol === "https:" ? trust.secureContext() : undefined;
      const connector = buildConnector({
        timeout: idle,
        ...lookup,
        ...(secureContext ? { secureContext } : {}),
      });
      return new Pool(origin, { ...opts, connect: guardedConnector(connector) });
    },
  });
  if (proxy.httpProxy === "" && proxy.httpsProxy === "") {
    return { dispatcher: direct, proxy, trust };
  }
  const through = (uri: string): Dispatcher => {
    const secureContext = trust.secureContext();
    const tls = secureContext ? { secureContext } : {};
    return new ProxyAgent({
      ...common,
      uri,
      // a proxy that drops a CONNECT fails the request once
      clientFactory: tunnelClientFactory(idle),
      // a Pool per origin on connections through the tunnel, with the connection guards
      factory: (origin: string | URL, opts: object) => {
        const { connect } = opts as { connect: Parameters<typeof guardedConnector>[0] };
        return new Pool(origin, { ...opts, connect: guardedConnector(connect) });
      },
      ...(secureContext ? { requestTls: tls } : {}),
      proxyTls: { ...tls, ...lookup },
    });
  };
  return { dispatcher: new ProxyRouter(proxy, direct, through), proxy, trust };
}

/**
 * Checks and normalises a `config set proxy|ca-file` value: a proxy must be an `http(s)://`
 * URL; a CA file must be a readable PEM file and is stored as an absolute path. Throws
 * UsageError (exit 2) `invalid_proxy` / `invalid_ca_file`.
 */
export function normaliseNetworkSetting(
  key: "proxy" | "ca-file",
  value: string,
  cwd: string,
): string {
  if (key === "proxy") {
    proxySettings({ proxy: value, env: {} });
    return value.trim();
  }
  const path = resolve(cwd, value.trim());
  tlsTrust({ caFile: path, env: {} });
  return path;
}
