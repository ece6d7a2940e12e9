/**
 * Rate limiter (spec, Limits): fixed windows per policy and per key (API key
 * id for `read`/`download`, IP address for `public`/`auth`), and the rate-limit
 * headers in both spellings.
 */
import type { LimitConfig, PolicyName } from "./service-types.js";

/** The spec's table: 120 reads, 30 downloads, 120 public, 20 failed auth per 60 s. */
export const DEFAULT_LIMITS: Record<PolicyName, LimitConfig> = {
  read: { quota: 120, windowSeconds: 60 },
  download: { quota: 30, windowSeconds: 60 },
  public: { quota: 120, windowSeconds: 60 },
  auth: { quota: 20, windowSeconds: 60 },
};

/** Outcome of one limiter check. */
export interface LimitResult {
  allowed: boolean;
  policy: PolicyName;
  /** Quota `q`. */
  quota: number;
  /** Window `w` in seconds. */
  windowSeconds: number;
  /** Requests remaining `r` after this one. */
  remaining: number;
  /** Whole seconds until the window resets `t` (≥ 1 while a window is open). */
  resetSeconds: number;
}

interface Bucket {
  count: number;
  resetAt: number;
}

/** Fixed-window counters. */
export class Limiter {
  private buckets = new Map<string, Bucket>();

  constructor(
    public limits: Record<PolicyName, LimitConfig>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Count one request of `policy` for `id`; `allowed` false means answer 429. */
  take(policy: PolicyName, id: string): LimitResult {
    const cfg = this.limits[policy];
    const now = this.now();
    const k = `${policy}\u0000${id}`;
    let b = this.buckets.get(k);
    if (b === undefined || now >= b.resetAt) {
      b = { count: 0, resetAt: now + cfg.windowSeconds * 1000 };
      this.buckets.set(k, b);
    }
    const allowed = b.count < cfg.quota;
    if (allowed) b.count++;
    return {
      allowed,
      policy,
      quota: cfg.quota,
      windowSeconds: cfg.windowSeconds,
      remaining: Math.max(0, cfg.quota - b.count),
      resetSeconds: Math.max(1, Math.ceil((b.resetAt - now) / 1000)),
    };
  }

  /** Forget every counter. */
  reset(): void {
    this.buckets.clear();
  }
}

/**
 * The five rate-limit headers (six on 429): `RateLimit-Policy: "read";q=120;w=60`,
 * `RateLimit: "read";r=119;t=60`, `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 * `X-RateLimit-Reset` (seconds from now), and `Retry-After` (seconds) when denied.
 */
export function rateLimitHeaders(r: LimitResult, retryAfter?: number): Record<string, string> {
  const h: Record<string, string> = {
    "RateLimit-Policy": `"${r.policy}";q=${r.quota};w=${r.windowSeconds}`,
    RateLimit: `"${r.policy}";r=${r.remaining};t=${r.resetSeconds}`,
    "X-RateLimit-Limit": String(r.quota),
    "X-RateLimit-Remaining": String(r.remaining),
    "X-RateLimit-Reset": String(r.resetSeconds),
  };
  if (!r.allowed || retryAfter !== undefined) {
    h["Retry-After"] = String(Math.max(1, Math.ceil(retryAfter ?? r.resetSeconds)));
  }
  return h;
}
