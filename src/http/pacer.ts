import { RateLimitedError } from "../errors/rate-limited-error.js";
import type { Clock } from "../model.js";
import { readRateLimitHeaders } from "./rate-limit-headers.js";

/** The spec's rate-limit budgets (spec "Limits"). Reads and downloads are separate. */
export type Budget = "read" | "download" | "public" | "auth";

interface BudgetState {
  remaining: number;
  /** Epoch ms at which the window resets. */
  resetAtMs: number;
}

const BUDGETS: readonly string[] = ["read", "download", "public", "auth"];

/** Options of {@link RateLimitPacer}. */
export interface PacerOptions {
  /**
   * Longest single wait for a reset, in ms (`--max-wait`); a longer one throws `rate_limited`
   * (exit 6) instead of sleeping. Default: no limit.
   */
  maxWaitMs?: number;
}

/**
 * Paces requests by the service's rate-limit headers (cli-contract "Retries and rate limits"):
 * every response's headers are recorded against its budget (the policy the response names wins
 * over the one the request was sent under); when a budget's remaining count is 0, the next
 * request of that budget waits until the reset instead of provoking a 429. Budgets are kept
 * apart (a spent download budget never delays a read). One pacer per process: nothing is
 * persisted between runs (a later run that meets a 429 waits `Retry-After` instead).
 */
export class RateLimitPacer {
  readonly #clock: Clock;
  readonly #onWait: (budget: Budget, waitMs: number) => void;
  readonly #maxWaitMs: number;
  readonly #state = new Map<Budget, BudgetState>();

  /** `onWait` is told before each wait, with the budget and the wait in milliseconds. */
  constructor(
    clock: Clock,
    onWait: (budget: Budget, waitMs: number) => void,
    opts: PacerOptions = {},
  ) {
    this.#clock = clock;
    this.#onWait = onWait;
    this.#maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Waits, when the budget is known to be spent, until its window resets. Throws SvcError
   * `rate_limited` (exit 6) when that wait is longer than `maxWaitMs`, and the signal's reason
   * when aborted.
   */
  async beforeRequest(budget: Budget, signal?: AbortSignal): Promise<void> {
    const state = this.#state.get(budget);
    if (!state || state.remaining > 0) return;
    const waitMs = state.resetAtMs - this.#clock.now();
    if (waitMs <= 0) {
      this.#state.delete(budget);
      return;
    }
    if (waitMs > this.#maxWaitMs) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new RateLimitedError(
        `the ${budget} rate-limit budget is spent and resets in ${seconds}s, longer than --max-wait allows`,
        { retryAfterSeconds: seconds, now: this.#clock.now() },
      );
    }
    this.#onWait(budget, waitMs);
    await this.#clock.sleep(waitMs, signal);
    this.#state.delete(budget);
  }

  /**
   * Records a response's rate-limit headers (`RateLimit`, `RateLimit-Policy`, `X-RateLimit-*`).
   * Returns the remaining count, when the headers told it.
   */
  observe(
    budget: Budget,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): number | undefined {
    const now = this.#clock.now();
    const info = readRateLimitHeaders(headers, now);
    if (info.remaining === undefined) return undefined;
    const named = info.policy !== undefined && BUDGETS.includes(info.policy);
    const target = named ? (info.policy as Budget) : budget;
    // A reset of 0 with nothing remaining still means "wait a moment": allow 1 s.
    const resetSeconds = info.resetSeconds ?? info.windowSeconds ?? 1;
    this.#state.set(target, {
      remaining: info.remaining,
      resetAtMs: now + Math.max(resetSeconds, info.remaining === 0 ? 1 : 0) * 1000,
    });
    return info.remaining;
  }

  /** The remaining count last seen for a budget, if any. */
  remaining(budget: Budget): number | undefined {
    return this.#state.get(budget)?.remaining;
  }
}

/** Which budget a request to the service spends (spec "Limits", first table). */
export function budgetForPath(pathname: string): Budget {
  if (/\/download\/?$/.test(pathname)) return "download";
  if (/\/v1\/catalog(\/|$)/.test(pathname)) return "public";
  return "read";
}
