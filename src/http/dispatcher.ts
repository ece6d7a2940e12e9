import { readFileSync } from "node:fs";
import type { LookupFunction } from "node:net";
import { resolve } from "node:path";
import { rootCertificates } from "node:tls";
import { Agent, type Dispatcher, ProxyAgent } from "undici";
import { UsageError } from "../errors/usage-error.js";
import { ProxyRouter, type ProxySettings, proxyFor } from "./proxy-route.js";
import { tunnelClientFactory } from "./proxy-tunnel.js";

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
 * Trusted roots: Node's bundled roots, `NODE_EXTRA_CA_CERTS` of `settings.env` and the CA file.
 * Returns undefined when there is no CA file and no `NODE_EXTRA_CA_CERTS` other than the one the
 * process started with (Node's defaults, which include that one, apply). Node reads the variable
 * only at process start, so one given in the env of a library call (or an in-process run) is
 * read here. Throws UsageError (exit 2,
 * `invalid_ca_file`) when the CA file cannot be read or holds no PEM.
 */
export function trustedCas(
  settings: Pick<NetworkSettings, "caFile" | "env">,
): string[] | undefined {
  const caFile = settings.caFile?.trim();
  const extra = settings.env.NODE_EXTRA_CA_CERTS?.trim();
  // The process loaded its own NODE_EXTRA_CA_CERTS at start: Node's defaults (which may also be
  // the system's store) already hold it, so only a different one needs an explicit list.
  const loadedByNode = extra !== undefined && extra === process.env.NODE_EXTRA_CA_CERTS?.trim();
  if (!caFile && (!extra || loadedByNode)) return undefined;
  const cas = [...rootCertificates];
  if (extra) {
    try {
      cas.push(readFileSync(extra, "utf8"));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS; the CA file still applies.
    }
  }
  if (!caFile) return cas;
  let pem: string;
  try {
    pem = readFileSync(caFile, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read the CA file ${caFile}: ${(err as Error).message}`, {
      code: "invalid_ca_file",
    });
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new UsageError(`the CA file ${caFile} holds no PEM certificate`, {
      code: "invalid_ca_file",
    });
  }
  cas.push(pem);
  return cas;
}

/**
 * The one dispatcher of a run (cli-contract "Networks"): keep-alive connections per origin
 * (a sync reuses connections and TLS sessions), every request API and CDN alike through the
 * proxy {@link proxyFor} picks when one is set (`NO_PROXY` honoured, CIDR blocks included; https
 * through a `CONNECT` tunnel, so the proxy never sees the key; plain http only through a
 * loopback proxy), the extra CAs for the origin connections, and a silence limit of 30 s while
 * connecting, for the head and between body bytes.
 */
export function createDispatcher(settings: NetworkSettings): {
  dispatcher: Dispatcher;
  proxy: ProxySettings;
} {
  const proxy = proxySettings(settings);
  const ca = trustedCas(settings);
  const idle = settings.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const common = {
    keepAliveTimeout: 10_000,
    headersTimeout: idle,
    bodyTimeout: idle,
    connectTimeout: idle,
    maxResponseSize: -1,
  };
  const lookup = settings.lookup ? { lookup: settings.lookup } : {};
  const direct = new Agent({ ...common, connect: { ...(ca ? { ca } : {}), ...lookup } });
  if (proxy.httpProxy === "" && proxy.httpsProxy === "") return { dispatcher: direct, proxy };
  const through = (uri: string): Dispatcher =>
    new ProxyAgent({
      ...common,
      uri,
      // a proxy that drops a CONNECT fails the request once
      clientFactory: tunnelClientFactory(idle),
      ...(ca ? { requestTls: { ca } } : {}),
      proxyTls: { ...(ca ? { ca } : {}), ...lookup },
    });
  return { dispatcher: new ProxyRouter(proxy, direct, through), proxy };
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
  trustedCas({ caFile: path, env: {} });
  return path;
}
