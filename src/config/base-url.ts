import { isIP } from "node:net";
import { UsageError } from "../errors/usage-error.js";

/** Where a setting came from, in precedence order (cli-contract "Configuration"). */
export type SettingSource = "flag" | "env" | "config";

/** A resolved service address. */
export interface ResolvedBaseUrl {
  /** Normalised `{base_url}`: scheme, host, port and any path prefix, no trailing slash. */
  readonly url: URL;
  readonly source: SettingSource;
}

/**
 * True for `localhost`, `127.0.0.0/8` and `[::1]` only (cli-contract "Configuration"). Names
 * under `.localhost` are not loopback here: they are resolved through DNS like any other name.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * Checks and normalises a service address. Throws UsageError (exit 2) for a missing scheme,
 * a scheme other than http/https, `http://` to a non-loopback host (the key would travel in
 * clear text), credentials, query or fragment in the URL, or a path ending in `/api` or
 * `/api/v1` (the base URL is the service address without `/api`). `source` only names where
 * the value came from in messages (`argument`: `svc-dl config set base-url VALUE`).
 */
export function parseBaseUrl(raw: string, source: SettingSource | "argument"): URL {
  const where = describeSource(source);
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid base URL ${JSON.stringify(value)} (from ${where})`, {
      code: "invalid_base_url",
    });
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UsageError(`invalid base URL ${JSON.stringify(value)} (from ${where})`, {
      code: "invalid_base_url",
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`base URL must use https:// (got ${url.protocol}, from ${where})`, {
      code: "invalid_base_url",
    });
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing http:// base URL for non-loopback host ${url.hostname} (from ${where}): the API key would travel in clear text`,
      {
        code: "insecure_base_url",
        detail: { suggestion: `https://${url.host}${url.pathname.replace(/\/$/, "")}` },
      },
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(
      `base URL must not carry credentials, a query or a fragment (from ${where})`,
      { code: "invalid_base_url" },
    );
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (/\/api(\/v1)?$/i.test(path)) {
    const suggestion = `${url.origin}${path.replace(/\/api(\/v1)?$/i, "")}`;
    throw new UsageError(
      `base URL ${JSON.stringify(value)} (from ${where}) should be the service address without /api or /api/v1`,
      { code: "invalid_base_url", detail: { suggestion } },
    );
  }
  url.pathname = path === "" ? "/" : path;
  return url;
}

/**
 * Resolves the base URL by precedence flag > env (`SVC_BASE_URL`) > config file.
 * Throws UsageError (exit 2, code `no_base_url`) naming all three ways when none is set.
 */
export function resolveBaseUrl(sources: {
  flag?: string | undefined;
  env?: string | undefined;
  config?: string | undefined;
}): ResolvedBaseUrl {
  const ordered: [SettingSource, string | undefined][] = [
    ["flag", sources.flag],
    ["env", sources.env],
    ["config", sources.config],
  ];
  for (const [source, value] of ordered) {
    if (value !== undefined && value.trim() !== "") {
      return { url: parseBaseUrl(value, source), source };
    }
  }
  throw new UsageError("no service address configured", {
    code: "no_base_url",
  });
}

/** `{base_url}` without a trailing slash, as a string, for joining paths. */
export function baseUrlString(url: URL): string {
  return url.href.replace(/\/+$/, "");
}

/** Where a base URL came from, as messages name it (`--base-url`, `SVC_BASE_URL`, …). */
export function describeSource(source: SettingSource | "argument"): string {
  if (source === "flag") return "--base-url";
  if (source === "argument") return "`config set base-url`";
  if (source === "env") return "SVC_BASE_URL";
  return "the config file";
}
