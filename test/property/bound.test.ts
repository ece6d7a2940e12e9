import { describe, expect, it } from "vitest";
import { CaseTimeout, CaseTrace, type Watchdog, withinBound } from "./bound.js";

/** A watchdog fired by hand: `fire()` is the bound being reached. */
function handWatchdog(): { watchdog: Watchdog; fire: () => void; armed: () => boolean } {
  let fire: (() => void) | undefined;
  return {
    watchdog: (_ms, f) => {
      fire = f;
      return () => {
        fire = undefined;
      };
    },
    fire: () => fire?.(),
    armed: () => fire !== undefined,
  };
}

describe("the per-case bound of the property test", () => {
  it("a case that never ends fails at the bound, naming its pending step, and the step is cancelled", async () => {
    const trace = new CaseTrace();
    const dog = handWatchdog();
    let cancelled = 0;
    const never = new Promise<void>(() => undefined);
    const bounded = withinBound(
      90_000,
      trace,
      () => {
        trace.step("run 1: svc-dl pack get x -o - (in-process)", [() => "stdout 256 bytes"], () => {
          cancelled += 1;
        });
        return never;
      },
      dog.watchdog,
    );
    dog.fire();
    const err = await bounded.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CaseTimeout);
    expect(String((err as Error).message)).toMatch(
      /did not end within 90 s; still pending: run 1: svc-dl pack get x -o - \(in-process\) \(for [\d.]+ s; stdout 256 bytes\); active resources: /,
    );
    expect(cancelled).toBe(1);
  });

  it("a case that ends in time keeps its own outcome and disarms the watchdog", async () => {
    const dog = handWatchdog();
    await expect(withinBound(1000, new CaseTrace(), async () => 7, dog.watchdog)).resolves.toBe(7);
    expect(dog.armed()).toBe(false);
    const failing = withinBound(
      1000,
      new CaseTrace(),
      async () => {
        throw new Error("the files differ");
      },
      dog.watchdog,
    );
    await expect(failing).rejects.toThrow("the files differ");
    expect(dog.armed()).toBe(false);
  });
});
