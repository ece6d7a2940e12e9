import { NO_COMMAND } from "../../errors/codes.js";
import type { NetworkSettings } from "../../http/dispatcher.js";
import type { Session } from "../../session.js";
import { type DoctorCheck, failure } from "./doctor-check.js";
import type { ProbeBudget, ProbeTarget } from "./probe.js";
import { proxyCheck } from "./proxy-check.js";
import { dnsCheck, tcpCheck } from "./socket-checks.js";
import { tlsCheck } from "./tls-check.js";

/**
 * DNS, proxy in use, TCP and TLS to the API origin (cli-contract "Operating unattended", doctor),
 * one check each, in the order a request meets them: the proxy (from the same settings and the
 * same selection as every request: `--proxy` > proxy env vars > config `proxy`, `NO_PROXY`
 * applied; its password shown as `***`), then the name resolution, the TCP connection and the
 * TLS handshake of the first hop: the origin itself, or the proxy and a `CONNECT` tunnel through
 * it. A check that cannot run because an earlier one failed is not reported. `ok` is false when
 * one failed (later checks that need the service are then skipped too). The probes share
 * `budget` (a probe that runs out of it fails, named, with `[timeout]`).
 */
export async function networkChecks(
  session: Session,
  target: ProbeTarget,
  budget: ProbeBudget,
): Promise<{ checks: DoctorCheck[]; ok: boolean }> {
  const checks: DoctorCheck[] = [];
  const hints = session.hints ?? NO_COMMAND;
  const done = (check: DoctorCheck) => {
    checks.push(check);
    return check.status !== "fail";
  };
  let settings: NetworkSettings;
  let proxyUrl: string | undefined;
  try {
    settings = await session.networkSettings();
    const found = proxyCheck(settings, target.url, proxySource(session, settings, target.url));
    proxyUrl = found.proxyUrl;
    checks.push(found.check);
  } catch (err) {
    checks.push(failure("proxy", err, session.hints));
    return { checks, ok: false };
  }
  const hop = proxyUrl === undefined ? undefined : new URL(proxyUrl);
  const via = hop && { url: hop, source: proxySource(session, settings, target.url) ?? "" };
  const ok =
    done(await dnsCheck(target, via, budget, hints)) &&
    done(await tcpCheck(via ?? target, via !== undefined, budget)) &&
    done(
      await tlsCheck({
        target,
        proxy: hop,
        settings,
        caSource: caSource(session, settings),
        nowMs: (session.ctx.clock ?? { now: () => Date.now() }).now(),
        budget,
        hints,
      }),
    );
  return { checks, ok };
}

/** Where the proxy for `url` was set: `--proxy`, the config, or the proxy variable in use. */
function proxySource(session: Session, settings: NetworkSettings, url: URL): string | undefined {
  if (session.globals.proxy !== undefined) return "--proxy";
  if (settings.proxy !== undefined) return "config proxy";
  const names =
    url.protocol === "https:"
      ? ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"]
      : ["http_proxy", "HTTP_PROXY"];
  return names.find((name) => (settings.env[name] ?? "").trim() !== "");
}

/** Where the extra CA file came from (`--ca-file` > `SVC_CA_FILE` > config), for the TLS line. */
function caSource(session: Session, settings: NetworkSettings): string | undefined {
  if (settings.caFile === undefined) return undefined;
  if (session.globals.caFile !== undefined) return "--ca-file";
  return settings.env.SVC_CA_FILE?.trim() ? "SVC_CA_FILE" : "config ca-file";
}
