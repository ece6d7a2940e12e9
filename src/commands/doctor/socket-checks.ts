import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type HintContext, renderHint } from "../../errors/codes.js";
import { IDLE_TIMEOUT_MS } from "../../http/dispatcher.js";
import { probeConnect } from "../../http/probe-connect.js";
import type { DoctorCheck } from "./doctor-check.js";
import { endpointOf, type ProbeBudget, type ProbeTarget } from "./probe.js";

/**
 * DNS: resolves the first hop's host name as connections do (`getaddrinfo`, so `/etc/hosts`
 * counts): the origin's, or with a proxy the proxy's (the proxy resolves the origin's name
 * itself). An IP address needs no lookup. Fails with `dns_error` and the error table's hint
 * (rendered for `hints`, doctor's command context) naming the setting to check.
 */
export async function dnsCheck(
  target: ProbeTarget,
  via: ProbeTarget | undefined,
  budget: ProbeBudget,
  hints: HintContext,
): Promise<DoctorCheck> {
  const hop = via ?? target;
  const { host } = endpointOf(hop.url);
  const origin = endpointOf(target.url).host;
  const through = !via
    ? ""
    : isIP(origin) === 0
      ? ` (the proxy's; ${origin} is resolved by the proxy)`
      : " (the proxy's)";
  if (isIP(host) !== 0) {
    return { name: "dns", status: "ok", finding: `${host} is an address${through}`, hint: null };
  }
  try {
    const found = await budget.race(lookup(host, { all: true }), () => undefined);
    if (!found) {
      return {
        name: "dns",
        status: "fail",
        finding: `${host}: ${budget.ranOut()}${through} [timeout]`,
        hint: "Check this machine's DNS resolver (/etc/resolv.conf) and the network.",
      };
    }
    const addresses = found.map((a) => a.address).join(", ");
    return { name: "dns", status: "ok", finding: `${host} → ${addresses}${through}`, hint: null };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      name: "dns",
      status: "fail",
      finding: `${host} does not resolve${through}: ${String(code ?? err)} [dns_error]`,
      hint: renderHint(
        "dns_error",
        hints,
        via ? { proxySource: via.source || "the proxy setting" } : { source: target.source },
      ),
    };
  }
}

/** Socket error codes that mean nothing answered in time or the route is missing. */
const UNREACHABLE = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
]);

/**
 * TCP: opens one connection to the first hop (the origin, or the proxy when `viaProxy`),
 * reports the address reached and the time it took, and closes it. A refusal, a missing route
 * or silence past what is left of doctor's `budget` (at most the run's connect limit,
 * {@link IDLE_TIMEOUT_MS}) fails with a hint.
 */
export async function tcpCheck(
  hop: ProbeTarget,
  viaProxy: boolean,
  budget: ProbeBudget,
): Promise<DoctorCheck> {
  const { host, port } = endpointOf(hop.url);
  const what = viaProxy ? "the proxy" : "the service";
  const started = performance.now();
  const timeoutMs = Math.min(IDLE_TIMEOUT_MS, budget.remainingMs());
  try {
    const socket = await probeConnect({ host, port, tls: false, timeoutMs });
    const remote = `${socket.remoteAddress ?? host}:${socket.remotePort ?? port}`;
    socket.destroy();
    const ms = Math.round(performance.now() - started);
    return { name: "tcp", status: "ok", finding: `${what} at ${remote} in ${ms} ms`, hint: null };
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? "");
    const refused = code === "ECONNREFUSED";
    const why = refused
      ? "refused the connection"
      : // the budget set the limit (see tls-check.ts: its timer may fire before spent() is true)
        code === "UND_ERR_CONNECT_TIMEOUT" && (budget.spent() || timeoutMs < IDLE_TIMEOUT_MS)
        ? budget.ranOut()
        : UNREACHABLE.has(code)
          ? "cannot be reached (no answer, or no route)"
          : `failed: ${(err as Error).message}`;
    const where = viaProxy
      ? `the proxy address (from ${hop.source || "the proxy setting"})`
      : `the base URL's host and port (from ${hop.source})`;
    return {
      name: "tcp",
      status: "fail",
      finding: `${host}:${port} (${what}) ${why} [network_error]`,
      hint: refused
        ? `Check ${where} and that ${what} is running.`
        : `Check ${where}; a firewall may block it${viaProxy ? "" : ", or this network needs a proxy (--proxy, HTTPS_PROXY)"}.`,
    };
  }
}
