import { parseDictionary, parseList } from "structured-headers";
import { headerListValue, type ResponseHeaders } from "./response-body.js";

/** What one response said about its rate-limit policy (spec "Limits", response headers). */
export interface RateLimitInfo {
  /** Policy name (`read`, `download`, `public`, `auth`), when the response named it. */
  policy?: string;
  /** Quota `q`: requests per window. */
  quota?: number;
  /** Window `w`, in seconds. */
  windowSeconds?: number;
  /** Requests remaining `r` in the current window. */
  remaining?: number;
  /** Seconds until the window resets (`t`, `X-RateLimit-Reset`). */
  resetSeconds?: number;
  /** `Retry-After` in seconds (whole seconds, or an HTTP date converted to seconds from now). */
  retryAfterSeconds?: number;
}

type HeaderBag = Readonly<ResponseHeaders>;

function nonNegativeNumber(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Name of a structured-field list member (string or token), when it is one. */
function itemName(item: unknown): string | undefined {
  if (typeof item === "string") return item;
  if (item && typeof item === "object" && "toString" in item) {
    const s = String(item);
    return s === "[object Object]" ? undefined : s;
  }
  return undefined;
}

/** Parses `RateLimit-Policy: "read";q=120;w=60` (first member). */
function parsePolicy(value: string): Pick<RateLimitInfo, "policy" | "quota" | "windowSeconds"> {
  try {
    const first = parseList(value)[0];
    if (!first) return {};
    const [item, params] = first;
    const out: Pick<RateLimitInfo, "policy" | "quota" | "windowSeconds"> = {};
    const name = itemName(item);
    if (name !== undefined) out.policy = name;
    const q = nonNegativeNumber(params.get("q"));
    const w = nonNegativeNumber(params.get("w"));
    if (q !== undefined) out.quota = q;
    if (w !== undefined) out.windowSeconds = w;
    return out;
  } catch {
    return {};
  }
}

/**
 * Parses `RateLimit: "read";r=119;t=60` (IETF draft 08+), and tolerates the older dictionary
 * form `limit=120, remaining=119, reset=60`.
 */
function parseRateLimit(
  value: string,
): Pick<RateLimitInfo, "policy" | "remaining" | "resetSeconds"> {
  const out: Pick<RateLimitInfo, "policy" | "remaining" | "resetSeconds"> = {};
  try {
    const first = parseList(value)[0];
    if (first) {
      const [item, params] = first;
      const r = nonNegativeNumber(params.get("r"));
      const t = nonNegativeNumber(params.get("t"));
      const name = itemName(item);
      if (r !== undefined || t !== undefined) {
        if (name !== undefined) out.policy = name;
        if (r !== undefined) out.remaining = r;
        if (t !== undefined) out.resetSeconds = t;
        return out;
      }
    }
  } catch {
    // fall through to the dictionary form
  }
  try {
    const dict = parseDictionary(value);
    const remaining = dict.get("remaining");
    const reset = dict.get("reset");
    const r = nonNegativeNumber(Array.isArray(remaining) ? remaining[0] : undefined);
    const t = nonNegativeNumber(Array.isArray(reset) ? reset[0] : undefined);
    if (r !== undefined) out.remaining = r;
    if (t !== undefined) out.resetSeconds = t;
  } catch {
    // unparseable: ignore, X-RateLimit-* may still be there
  }
  return out;
}

/** Parses `Retry-After` (delta seconds or HTTP date) into seconds from `nowMs`. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * Reads every rate-limit header of a response (spec "Limits": `RateLimit-Policy`,
 * `RateLimit`, `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`,
 * `Retry-After`). Header names must be lower-case (as undici gives them). The structured
 * headers win over the `X-` spellings when both are present; unparseable values are ignored.
 */
export function readRateLimitHeaders(headers: HeaderBag, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const policyHeader = headerListValue(headers, "ratelimit-policy");
  const rateLimitHeader = headerListValue(headers, "ratelimit");
  const fromPolicy = policyHeader ? parsePolicy(policyHeader) : {};
  const fromRateLimit = rateLimitHeader ? parseRateLimit(rateLimitHeader) : {};
  const policy = fromRateLimit.policy ?? fromPolicy.policy;
  if (policy !== undefined) info.policy = policy;
  const quota =
    fromPolicy.quota ?? nonNegativeNumber(headerListValue(headers, "x-ratelimit-limit"));
  if (quota !== undefined) info.quota = quota;
  if (fromPolicy.windowSeconds !== undefined) info.windowSeconds = fromPolicy.windowSeconds;
  const remaining =
    fromRateLimit.remaining ?? nonNegativeNumber(headerListValue(headers, "x-ratelimit-remaining"));
  if (remaining !== undefined) info.remaining = remaining;
  const reset =
    fromRateLimit.resetSeconds ?? nonNegativeNumber(headerListValue(headers, "x-ratelimit-reset"));
  if (reset !== undefined) info.resetSeconds = reset;
  const retryAfter = parseRetryAfter(headerListValue(headers, "retry-after"), nowMs);
  if (retryAfter !== undefined) info.retryAfterSeconds = retryAfter;
  return info;
}
