import { getMe } from "../../api/get-me.js";
import { keySourceName } from "../../config/api-key.js";
import { describeSource } from "../../config/base-url.js";
import { NO_COMMAND, renderHint } from "../../errors/codes.js";
import { counted } from "../../io/plural.js";
import { OutputDir } from "../../outdir/output-dir.js";
import type { Session } from "../../session.js";
import { budgetCheck } from "./budget-check.js";
import { type DoctorCheck, failure } from "./doctor-check.js";
import { networkChecks } from "./network-checks.js";
import { type NETWORK_PROBE_BUDGET_MS, ProbeBudget } from "./probe.js";

/** Node's version must be at least this (package.json `engines`). */
const MIN_NODE = [20, 18] as const;

/**
 * Node version against the minimum; the finding also names the undici version bundled into the
 * program (`undici`, when svc-dl runs from its bundle).
 */
export function nodeCheck(version: string, undici?: string): DoctorCheck {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  const bundled = undici === undefined ? "" : `, bundled undici ${undici}`;
  return ok
    ? { name: "node", status: "ok", finding: `Node ${version}${bundled}`, hint: null }
    : {
        name: "node",
        status: "fail",
        finding: `Node ${version} is older than ${MIN_NODE.join(".")}`,
        hint: `Install Node ${MIN_NODE.join(".")} or later.`,
      };
}

/**
 * The checks that need the session, in order: base URL; proxy, DNS, TCP and TLS to its origin
 * (network-checks.ts); key (present and its source, then accepted, with its scopes), clock
 * skew and the download budget (budget-check.ts); and with `dir` the state files. A check that cannot run because an earlier one failed
 * is not reported. The network probes and the key check's request share `budget` (doctor's
 * {@link NETWORK_PROBE_BUDGET_MS}, 15 s: against a silent host doctor ends within it).
 */
export async function sessionChecks(
  session: Session,
  dir: string | undefined,
  budget: ProbeBudget = new ProbeBudget(),
): Promise<DoctorCheck[]> {
  let target: { url: URL; source: string };
  try {
    const { url, source } = await session.baseUrl();
    target = { url, source: describeSource(source) };
  } catch (err) {
    return [failure("base-url", err, session.hints)];
  }
  const network = await networkChecks(session, target, budget);
  const checks: DoctorCheck[] = [
    {
      name: "base-url",
      status: "ok",
      finding: `${target.url.origin} (${target.source})`,
      hint: null,
    },
    ...network.checks,
    ...(await keyChecks(session, network.ok, budget)),
  ];
  if (dir !== undefined) checks.push(await stateCheck(dir));
  return checks;
}

/**
 * The key: present (and its source), then, when the service is `reachable`, accepted with its
 * scopes, the clock against the answer's `Date` and the budget its rate-limit headers show.
 */
async function keyChecks(
  session: Session,
  reachable: boolean,
  budget: ProbeBudget,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  try {
    const key = await session.apiKey();
    const from = key.source === "config" ? "the config file" : keySourceName(key);
    checks.push({ name: "api-key", status: "ok", finding: `present (from ${from})`, hint: null });
    if (!reachable) return checks;
    const { me, headers } = await getMe(await session.http(), {
      signal: budget.signal("key-accepted (GET /api/v1/me)"),
    });
    const scopes = me.key.scopes.join(", ") || "none";
    const missing = ["catalog:read", "downloads:read"].filter((s) => !me.key.scopes.includes(s));
    checks.push(
      missing.length === 0
        ? { name: "key-accepted", status: "ok", finding: `accepted; scopes ${scopes}`, hint: null }
        : {
            name: "key-accepted",
            status: "warn",
            finding: `accepted; scopes ${scopes} (missing ${missing.join(", ")})`,
            hint: renderHint("insufficient_scope", session.hints ?? NO_COMMAND),
          },
    );
    const now = (session.ctx.clock ?? { now: () => Date.now() }).now();
    checks.push(clockCheck(headers.date, now), budgetCheck(headers, now));
  } catch (err) {
    checks.push(
      failure(
        checks.some((c) => c.name === "api-key") ? "key-accepted" : "api-key",
        err,
        session.hints,
      ),
    );
  }
  return checks;
}

/** DIR's `.svc-dl/` state files are readable and valid. */
async function stateCheck(dir: string): Promise<DoctorCheck> {
  try {
    const n = OutputDir.inspect(dir).records().length;
    return {
      name: "state",
      status: "ok",
      finding: `${counted(n, "recorded file")} in ${dir}`,
      hint: null,
    };
  } catch (err) {
    return failure("state", err);
  }
}

/** Above this many seconds apart from the server's clock, doctor warns (signed URLs expire). */
const MAX_SKEW_S = 60;

/**
 * Clock skew: the local clock (`nowMs`) against the `Date` header of a service response
 * (cli-contract "Operating unattended"). Warns above {@link MAX_SKEW_S}, or without a date.
 */
export function clockCheck(date: string | string[] | undefined, nowMs: number): DoctorCheck {
  const server = typeof date === "string" ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(server)) {
    return {
      name: "clock",
      status: "warn",
      finding: "the service sent no valid Date header",
      hint: "Keep this machine's clock synchronised (NTP): signed download URLs expire.",
    };
  }
  // A Date header has whole seconds: up to 1 s of the difference is its rounding.
  const skew = Math.round((nowMs - server) / 1000);
  const finding = `${Math.abs(skew)} s ${skew >= 0 ? "ahead of" : "behind"} the service`;
  return Math.abs(skew) <= MAX_SKEW_S
    ? { name: "clock", status: "ok", finding, hint: null }
    : {
        name: "clock",
        status: "warn",
        finding,
        hint: "Synchronise this machine's clock (NTP): signed download URLs expire, so downloads can fail.",
      };
}
