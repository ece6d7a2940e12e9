import { DeadlineError } from "../errors/interrupted-error.js";
import type { Clock } from "../model.js";

/**
 * The end of a run's time window (`--max-duration`, cli-contract "Operating unattended"): no
 * item starts after it, a running transfer stops at it (partial data kept), and a wait (retry
 * backoff, 429, rate-limit reset, `--limit-rate`) ends at it. Times in ms of `clock`.
 */
export class Deadline {
  /** Epoch ms (of `clock`) at which the window ends. */
  readonly atMs: number;
  /** The window's length in seconds, as given. */
  readonly seconds: number;
  readonly #clock: Pick<Clock, "now">;

  /** A window of `seconds` starting now. */
  constructor(seconds: number, clock: Pick<Clock, "now">) {
    this.seconds = seconds;
    this.#clock = clock;
    this.atMs = clock.now() + seconds * 1000;
  }

  /** True once the window has ended. */
  reached(): boolean {
    return this.#clock.now() >= this.atMs;
  }

  /** Ms left (0 once reached). */
  remainingMs(): number {
    return Math.max(0, this.atMs - this.#clock.now());
  }

  /** The error that ends the run: exit 10 `deadline_reached`. */
  error(): DeadlineError {
    return new DeadlineError(this.seconds);
  }

  /** Throws {@link error} once the window has ended. */
  check(): void {
    if (this.reached()) throw this.error();
  }
}

/**
 * `inner` whose waits end at `deadline`: a sleep that would end after it sleeps only until it,
 * then throws DeadlineError (so a retry or rate-limit wait never outlives the run's window).
 * `now` is `inner`'s.
 */
export function deadlineClock(inner: Clock, deadline: Deadline): Clock {
  return {
    now: () => inner.now(),
    sleep: async (ms, signal) => {
      const left = deadline.remainingMs();
      if (ms < left) return inner.sleep(ms, signal);
      if (left > 0) await inner.sleep(left, signal);
      throw deadline.error();
    },
  };
}

/**
 * An AbortSignal aborted with the deadline's error when the real time reaches it (a transfer
 * that receives nothing still stops on time). The timer does not keep the process alive.
 */
export function deadlineSignal(deadline: Deadline): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(deadline.error()), deadline.remainingMs());
  timer.unref();
  return controller.signal;
}
