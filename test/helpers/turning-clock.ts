import type { Clock } from "../../src/model.js";

/** One turn of the event loop, I/O poll included (two check phases apart). */
export const turn = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * A clock whose sleeps move time on and end one event-loop turn later: a `--limit-rate` wait
 * holds its piece across socket reads, as with the real clock, without sleeping for real.
 */
export function turningClock(): Clock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
      await turn();
    },
  };
}
