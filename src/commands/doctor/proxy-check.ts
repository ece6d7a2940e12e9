import { type NetworkSettings, proxySettings } from "../../http/dispatcher.js";
import { noProxyMatcher } from "../../http/no-proxy.js";
import { proxyFor } from "../../http/proxy-route.js";
import { maskUrlCredentials } from "../../http/redact.js";
import type { DoctorCheck } from "./doctor-check.js";

/**
 * The proxy a request to `url` goes through (cli-contract "Networks"), chosen by the same code
 * as every request (`proxySettings` + `proxyFor`: `NO_PROXY`, the loopback rule for plain
 * http). The finding names it with its password as `***` and where it was set (`source`), or
 * why the request goes direct. Throws UsageError `invalid_proxy` for an address that is not
 * an `http(s)://` URL. Returns the check and the proxy's address (undefined: direct).
 */
export function proxyCheck(
  settings: NetworkSettings,
  url: URL,
  source: string | undefined,
): { check: DoctorCheck; proxyUrl: string | undefined } {
  const proxy = proxySettings(settings);
  const proxyUrl = proxyFor(proxy, url);
  const ok = (finding: string) => ({
    check: { name: "proxy", status: "ok", finding, hint: null } satisfies DoctorCheck,
    proxyUrl,
  });
  if (proxyUrl !== undefined) {
    return ok(`${maskUrlCredentials(proxyUrl)}${source === undefined ? "" : ` (from ${source})`}`);
  }
  const chosen = url.protocol === "https:" ? proxy.httpsProxy : proxy.httpProxy;
  if (chosen === "") return ok("none: requests go direct");
  if (noProxyMatcher(proxy.noProxy)(url)) return ok(`direct: NO_PROXY matches ${url.host}`);
  return ok(
    `direct: plain http:// to ${url.host} never crosses the proxy ${maskUrlCredentials(chosen)}, which is not on this machine`,
  );
}
