import { describe, expect, it } from "vitest";
import { SvcError } from "../../src/errors/svc-error.js";
import { budgetForPath, RateLimitPacer } from "../../src/http/pacer.js";
import type { Clock } from "../../src/model.js";

function fakeClock() {
  const sleeps: number[] = [];
  let t = 0;
  const clock: Clock = {
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  };
  return { clock, sleeps, advance: (ms: number) => (t += ms) };
}

describe("RateLimitPacer", () => {
  it("does not wait while the budget has requests left", async () => {
    const { clock, sleeps } = fakeClock();
    const p = new RateLimitPacer(clock, () => undefined);
    p.observe("read", { ratelimit: '"read";r=1;t=30' });
    await p.beforeRequest("read");
    expect(sleeps).toEqual([]);
  });

  it("waits until the reset when remaining is 0, and tells why", async () => {
    const { clock, sleeps } = fakeClock();
    const told: [string, number][] = [];
    const p = new RateLimitPacer(clock, (b, ms) => told.push([b, ms]));
    p.observe("read", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "4" });
    await p.beforeRequest("download");
    expect(sleeps).toEqual([]);
    await p.beforeRequest("read");
    expect(sleeps).toEqual([4000]);
    expect(told).toEqual([["read", 4000]]);
    await p.beforeRequest("read"); // the window has reset
    expect(sleeps).toEqual([4000]);
  });

  it("waits only what is left of the window", async () => {
    const { clock, sleeps, advance } = fakeClock();
    const p = new RateLimitPacer(clock, () => undefined);
    p.observe("read", { ratelimit: '"read";r=0;t=10' });
    advance(7000);
    await p.beforeRequest("read");
    expect(sleeps).toEqual([3000]);
  });

  it("files the headers under the policy they name", async () => {
    const { clock, sleeps } = fakeClock();
    const p = new RateLimitPacer(clock, () => undefined);
    p.observe("read", { ratelimit: '"auth";r=0;t=60' });
    expect(p.remaining("read")).toBeUndefined();
    expect(p.remaining("auth")).toBe(0);
    await p.beforeRequest("read");
    expect(sleeps).toEqual([]);
  });

  it("throws rate_limited (exit 6) rather than wait past maxWaitMs", async () => {
    const { clock, sleeps } = fakeClock();
    const p = new RateLimitPacer(clock, () => undefined, { maxWaitMs: 1000 });
    p.observe("download", { ratelimit: '"download";r=0;t=60' });
    const err = await p.beforeRequest("download").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect((err as SvcError).exitCode).toBe(6);
    expect((err as SvcError).hint).toMatch(/Retry after .*\(in 60s\)/);
    expect(sleeps).toEqual([]);
  });

  it("ignores responses without rate-limit headers", () => {
    const { clock } = fakeClock();
    const p = new RateLimitPacer(clock, () => undefined);
    expect(p.observe("read", { "content-type": "application/json" })).toBeUndefined();
    expect(p.remaining("read")).toBeUndefined();
  });
});

describe("budgetForPath", () => {
  it("maps routes to the spec's budgets", () => {
    expect(budgetForPath("/api/v1/me")).toBe("read");
    expect(budgetForPath("/api/v1/packs")).toBe("read");
    expect(budgetForPath("/api/v1/orders")).toBe("read");
    expect(budgetForPath("/api/v1/packs/x/download")).toBe("download");
    expect(budgetForPath("/api/v1/assets/x/download")).toBe("download");
    expect(budgetForPath("/api/download")).toBe("download");
    expect(budgetForPath("/api/v1/catalog/packs")).toBe("public");
  });
});
