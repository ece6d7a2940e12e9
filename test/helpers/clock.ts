/** A clock tests move by hand: `now()` in ms since the epoch, `advance(ms)` moves it on. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
}

/** A manual clock starting at `start` (default: the real time when created). */
export function manualClock(start = Date.now()): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}
