// The per-case time bound of the property test: a case that outlives it fails at once as a
// counterexample naming what it was still waiting on, so a run can never sit idle.

/** What a case is doing now, for the message of a case that outlived its bound. */
export class CaseTrace {
  #step = "drawing the case";
  #since = Date.now();
  #facts: (() => string)[] = [];
  #cancel: (() => void) | undefined;

  /**
   * Starts a step (`label`: what runs now). `facts` describe its progress when asked (bytes
   * seen, the interruption delivered or not); `cancel` ends it once the bound is reached
   * (Ctrl-C to an in-process run, SIGKILL to a child).
   */
  step(label: string, facts: (() => string)[] = [], cancel?: () => void): void {
    this.#step = label;
    this.#since = Date.now();
    this.#facts = facts;
    this.#cancel = cancel;
  }

  /** The step still pending, with its facts and how long it has run. */
  pending(): string {
    const facts = this.#facts.map((f) => f()).join("; ");
    const secs = ((Date.now() - this.#since) / 1000).toFixed(1);
    return `${this.#step} (for ${secs} s${facts ? `; ${facts}` : ""})`;
  }

  /** Ends the pending step, once (see {@link step}). */
  cancel(): void {
    const cancel = this.#cancel;
    this.#cancel = undefined;
    cancel?.();
  }
}

/** A case that outlived its bound. */
export class CaseTimeout extends Error {}

/** Calls `fire` after `ms`; returns what cancels it. */
export type Watchdog = (ms: number, fire: () => void) => () => void;

/** The real-time {@link Watchdog}. */
const realWatchdog: Watchdog = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * Runs `work` under a bound of `ms` real milliseconds (a watchdog, never a wait the case needs):
 * resolves or rejects as `work` does when it ends in time; else cancels the pending step and
 * rejects at once with a {@link CaseTimeout} naming the step, its facts and the process's
 * active resources (sockets, timers, child processes).
 */
export async function withinBound<T>(
  ms: number,
  trace: CaseTrace,
  work: () => Promise<T>,
  watchdog: Watchdog = realWatchdog,
): Promise<T> {
  let disarm = (): void => undefined;
  const running = work();
  const outlived = new Promise<never>((_resolve, reject) => {
    disarm = watchdog(ms, () => {
      const pending = trace.pending();
      trace.cancel();
      const resources = countResources(process.getActiveResourcesInfo());
      reject(
        new CaseTimeout(
          `the case did not end within ${ms / 1000} s; still pending: ${pending}; active resources: ${resources}`,
        ),
      );
    });
  });
  try {
    return await Promise.race([running, outlived]);
  } finally {
    disarm();
    running.catch(() => undefined); // a cancelled step may still fail later: already told
  }
}

/** `["Timeout", "Timeout", "TCPSocketWrap"]` → "Timeout×2, TCPSocketWrap×1". */
function countResources(names: string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].map(([n, k]) => `${n}×${k}`).join(", ") || "none";
}
