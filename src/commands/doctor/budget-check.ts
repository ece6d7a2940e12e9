import { type RateLimitInfo, readRateLimitHeaders } from "../../http/rate-limit-headers.js";
import type { ResponseHeaders } from "../../http/response-body.js";
import type { DoctorCheck } from "./doctor-check.js";

/** `r of q left, resets in t s` of one policy, with what the headers gave. */
function left(info: RateLimitInfo): string {
  const of = info.quota === undefined ? "" : ` of ${info.quota}`;
  const reset = info.resetSeconds === undefined ? "" : `, resets in ${info.resetSeconds} s`;
  return `${info.remaining ?? "?"}${of} left${reset}`;
}

/**
 * Download budget left (cli-contract "Operating unattended", doctor; spec "Limits"), from the
 * rate-limit headers of the `GET /v1/me` answer doctor already made. Reads and downloads have
 * separate budgets and a response carries the headers of the policy it reached: `/v1/me`
 * reports the read budget only, and the one request that would report the download budget
 * is a download, which spends one. So the download budget is reported as unknown until the
 * first download (never learnt by spending one), with the read budget beside it; a spent
 * budget warns with when it resets. Should a cheap answer ever carry the `download` policy,
 * it is used.
 */
export function budgetCheck(headers: Readonly<ResponseHeaders>, nowMs: number): DoctorCheck {
  const info = readRateLimitHeaders(headers, nowMs);
  const spent = (what: string): DoctorCheck => ({
    name: "budget",
    status: "warn",
    finding: `${what} budget spent: ${left(info)}`,
    hint: `Wait ${info.resetSeconds ?? "a minute"}${info.resetSeconds === undefined ? "" : " s"} before the next run: until then its requests wait for the window (up to --max-wait) or exit 6 rate_limited.`,
  });
  if (info.policy === "download") {
    return info.remaining === 0
      ? spent("download")
      : { name: "budget", status: "ok", finding: `download: ${left(info)}`, hint: null };
  }
  const read = info.remaining === undefined ? "" : `; read budget: ${left(info)}`;
  if (info.policy === "read" && info.remaining === 0) return spent("read");
  return {
    name: "budget",
    status: "ok",
    finding: `download budget unknown until the first download (only a download answer reports it, and asking would spend one)${read}`,
    hint: null,
  };
}
