import { readRateLimitHeaders } from "./rate-limit-headers.js";

/** The spec's rate-limit budgets (spec "Limits"). Reads and downloads are separate. */
export type Budget = "read" | "download" | "public" | "auth";

/** Clock and sleep, injectable for tests. Times in milliseconds. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

interface BudgetState {
  remaining: number;
  /** Epoch ms at which the window resets. */
  resetAtMs: number;
}

const BUDGETS: readonly string[] = ["read", "download", "public", "auth"];

/**
 * Paces requests by the service's rate-limit headers (cli-contract "Retries and rate limits"):
 * every response's headers are recorded against its budget; when a budget's remaining count
 * is 0, the next request of that budget waits until the reset instead of provoking a 429.
 */
export class RateLimitPacer {
  readonly #clock: Clock;
  readonly #onWait: (budget: Budget, waitMs: number) => void;
  readonly #state = new Map<Budget, BudgetState>();

  /** `onWait` is told before each wait, with the budget and the wait in milliseconds. */
  constructor(clock: Clock, onWait: (budget: Budget, waitMs: number) => void) {
    this.#clock = clock;
    this.#onWait = onWait;
  }

  /** Waits, when the budget is known to be spent, until its window resets. */
  async beforeRequest(budget: Budget, signal?: AbortSignal): Promise<void> {
    const state = this.#state.get(budget);
    if (!state || state.remaining > 0) return;
    const waitMs = state.resetAtMs - this.#clock.now();
    if (waitMs <= 0) {
      this.#state.delete(budget);
      return;
    }
    this.#onWait(budget, waitMs);
    await this.#clock.sleep(waitMs, signal);
    this.#state.delete(budget);
  }

  /**
   * Records a response's rate-limit headers. The policy named in the headers wins over the
   * budget the request was sent under. Returns the remaining count, when the headers told it.
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
