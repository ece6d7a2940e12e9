import { NetworkError } from "../errors/network-error.js";
import { RateLimitedError } from "../errors/rate-limited-error.js";
import type { SvcError } from "../errors/svc-error.js";
import type { Clock } from "../model.js";

/** Retry settings (cli-contract "Retries and rate limits"). Times in milliseconds unless named. */
export interface RetrySettings {
  /** Tries in all for 5xx and connection failures (first try included). Default 5. */
  maxTries: number;
  /** First backoff ceiling; doubles per retry (full jitter). Default 500 ms. */
  baseDelayMs: number;
  /** Largest backoff ceiling. Default 8000 ms. */
  maxDelayMs: number;
  /** Total seconds one operation may spend waiting on 429 `Retry-After`. Default 300 s. */
  maxWaitSeconds: number;
  /**
   * Attempts of one operation that may end in silence (`timeout`: the 30 s silence limit or the
   * low-speed rule) in all, progress or not: 4, so one item spends at most about 2 minutes on
   * a server that sends some bytes and then stalls, again and again (cli-contract "Networks").
   */
  maxSilentAttempts: number;
  /** Uniform random in [0, 1); injectable for tests. */
  random: () => number;
}

/** Defaults of {@link RetrySettings}. */
export const DEFAULT_RETRY: RetrySettings = {
  maxTries: 5,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxWaitSeconds: 300,
  maxSilentAttempts: 4,
  random: Math.random,
};

/**
 * Tries in all of an operation whose response broke HTTP/1.1 framing (`bad_framing`): a server
 * bug, not a transient fault, so one retry only (in case a connection was mangled once).
 */
export const MAX_FRAMING_TRIES = 2;

/** A failed attempt, as the retry logic sees it. */
export type Failure =
  | { kind: "rate_limited"; error: SvcError; retryAfterSeconds: number | undefined }
  | { kind: "server"; error: SvcError; retryAfterSeconds: number | undefined }
  | { kind: "network"; error: SvcError };

/** Statuses retried with backoff. 401/403/404/416 are never retried blindly. */
export function isRetryableStatus(status: number): boolean {
  return status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * The retry budget of one operation (one JSON call, or one whole download): counts tries for
 * 5xx and connection failures, and seconds waited on 429s. `wait()` sleeps before the next try,
 * or throws the final error when the budget is spent.
 */
export class RetryBudget {
  readonly #settings: RetrySettings;
  readonly #clock: Clock;
  readonly #onRetry: (message: string) => void;
  #failures = 0;
  #framingFailures = 0;
  #silentAttempts = 0;
  #waitedOn429Seconds = 0;

  readonly #onGiveUpSilent: ((error: SvcError) => void) | undefined;

  /**
   * `onRetry` gets one line per retry; `onGiveUpSilent` the error this budget throws when it
   * gives up on silence (`timeout`), for the run's memory of stalled origins (src/http/stalls.ts).
   */
  constructor(
    settings: RetrySettings,
    clock: Clock,
    onRetry: (message: string) => void,
    onGiveUpSilent?: (error: SvcError) => void,
  ) {
    this.#settings = settings;
    this.#clock = clock;
    this.#onRetry = onRetry;
    this.#onGiveUpSilent = onGiveUpSilent;
  }

  /**
   * Sleeps before retrying `failure`, or throws: the failure's own error once 5 tries are
   * spent (2 for `bad_framing`; 1 for an error whose cause is `definite`: a framing violation
   * the body fast path saw itself, a stalled origin), a NetworkError `timeout` once `maxSilentAttempts` attempts
   * went silent, or an ApiError `rate_limited` (exit 6) saying when to retry once the 429 wait
   * would pass `maxWaitSeconds`.
   */
  async wait(failure: Failure, signal?: AbortSignal): Promise<void> {
    if (failure.kind === "rate_limited") {
      const seconds = Math.max(1, failure.retryAfterSeconds ?? 1);
      if (this.#waitedOn429Seconds + seconds > this.#settings.maxWaitSeconds) {
        throw rateLimitedPastBudget(
          failure.error,
          seconds,
          this.#settings.maxWaitSeconds,
          this.#waitedOn429Seconds,
          this.#clock,
        );
      }
      this.#waitedOn429Seconds += seconds;
      this.#onRetry(
        `rate limited${failure.error.requestId ? ` (request id ${failure.error.requestId})` : ""}; waiting ${seconds}s as Retry-After asks`,
      );
      await this.#clock.sleep(seconds * 1000, signal);
      return;
    }
    this.#failures += 1;
    try {
      if (this.#failures >= this.#settings.maxTries) throw failure.error;
      this.#checkServerBugAndSilence(failure.error);
    } catch (err) {
      if ((err as SvcError).code === "timeout" && !isDefinite(err as SvcError)) {
        this.#onGiveUpSilent?.(err as SvcError);
      }
      throw err;
    }
    const ceiling = Math.min(
      this.#settings.maxDelayMs,
      this.#settings.baseDelayMs * 2 ** (this.#failures - 1),
    );
    let delayMs = Math.floor(this.#settings.random() * ceiling);
    if (failure.kind === "server" && failure.retryAfterSeconds !== undefined) {
      delayMs = Math.max(
        delayMs,
        Math.min(failure.retryAfterSeconds * 1000, this.#settings.maxDelayMs),
      );
    }
    this.#onRetry(
      `${failure.error.message} (${failure.error.code}); retry ${this.#failures}/${this.#settings.maxTries - 1} in ${(delayMs / 1000).toFixed(1)}s`,
    );
    await this.#clock.sleep(delayMs, signal);
  }

  /**
   * Forgets counted connection failures, e.g. after a download made progress. Framing
   * failures and silent attempts stay counted: progress does not excuse them.
   */
  resetFailures(): void {
    this.#failures = 0;
  }

  #checkServerBugAndSilence(error: SvcError): void {
    if (isDefinite(error)) throw error;
    if (error.code === "bad_framing" && ++this.#framingFailures >= MAX_FRAMING_TRIES) {
      throw error;
    }
    if (error.code === "timeout" && ++this.#silentAttempts >= this.#settings.maxSilentAttempts) {
      throw new NetworkError(
        `gave up after ${this.#silentAttempts} attempts that went silent: ${error.message}`,
        {
          code: "timeout",
          requestId: error.requestId,
          detail: { ...error.detail, gaveUp: true },
          cause: error,
        },
      );
    }
  }
}

/** The exit-6 error once 429 waits would pass `--max-wait`: says when to retry (ISO time and seconds). */
function rateLimitedPastBudget(
  error: SvcError,
  retryAfterSeconds: number,
  maxWaitSeconds: number,
  waitedSeconds: number,
  clock: Clock,
): RateLimitedError {
  const waited = waitedSeconds > 0 ? ` after waiting ${waitedSeconds}s` : "";
  return new RateLimitedError(
    `still rate limited${waited}: the service asks to wait ${retryAfterSeconds}s (Retry-After), more than the --max-wait budget of ${maxWaitSeconds}s allows`,
    {
      retryAfterSeconds,
      now: clock.now(),
      httpStatus: error.httpStatus ?? 429,
      requestId: error.requestId,
    },
  );
}

/** A failure the server repeats for sure (the body fast path's framing violations, a stalled origin). */
function isDefinite(error: SvcError): boolean {
  return (error.cause as { definite?: unknown } | undefined)?.definite === true;
}
