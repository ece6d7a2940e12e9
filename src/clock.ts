import { setTimeout as delay } from "node:timers/promises";
import { interruptedBy } from "./errors/interrupted-error.js";
import type { Clock } from "./model.js";

/**
 * The real clock of a run: `now()` is `Date.now()`; `sleep(ms, signal)` waits on a timer and
 * rejects with the signal's InterruptedError when it aborts (SIGINT → 130, SIGTERM → 143).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    try {
      await delay(ms, undefined, signal ? { signal } : {});
    } catch (err) {
      // An aborted wait ends the run as the signal says (SIGINT → 130, SIGTERM → 143).
      throw signal?.aborted ? interruptedBy(signal) : err;
    }
  },
};
