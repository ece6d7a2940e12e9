import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { NetworkError } from "../../src/errors/network-error.js";
import { RateLimitedError } from "../../src/errors/rate-limited-error.js";
import { DEFAULT_RETRY, isRetryableStatus, RetryBudget } from "../../src/http/retry.js";
import type { Clock } from "../../src/model.js";

function setup(random: () => number, maxWaitSeconds = 300) {
  const sleeps: number[] = [];
  const notes: string[] = [];
  let t = 0;
  const clock: Clock = {
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  };
  const budget = new RetryBudget({ ...DEFAULT_RETRY, random, maxWaitSeconds }, clock, (n) =>
    notes.push(n),
  );
  return { budget, sleeps, notes };
}

const server = () =>
  ({
    kind: "server",
    error: new ApiError({
      code: "internal_error",
      message: "boom",
      httpStatus: 500,
      requestId: "r1",
    }),
    retryAfterSeconds: undefined,
  }) as const;

const limited = (retryAfterSeconds: number) =>
  ({
    kind: "rate_limited",
    error: new ApiError({
      code: "rate_limited",
      message: "slow",
      httpStatus: 429,
      requestId: "r2",
    }),
    retryAfterSeconds,
  }) as const;

describe("RetryBudget", () => {
  it("retries 4 times (5 tries in all) with full jitter under doubling ceilings", async () => {
    const { budget, sleeps } = setup(() => 0.999);
    for (let i = 0; i < 4; i++) await budget.wait(server());
    await expect(budget.wait(server())).rejects.toMatchObject({ code: "internal_error" });
    expect(sleeps).toEqual([499, 999, 1998, 3996]);
  });

  it("full jitter can be zero", async () => {
    const { budget, sleeps } = setup(() => 0);
    await budget.wait({ kind: "network", error: new NetworkError("reset") });
    expect(sleeps).toEqual([0]);
  });

  it("429 waits Retry-After seconds within the total budget, then exit 6", async () => {
    const { budget, sleeps, notes } = setup(Math.random, 10);
    await budget.wait(limited(4));
    await budget.wait(limited(6));
    const err = await budget.wait(limited(1)).catch((e: unknown) => e);
    expect(sleeps).toEqual([4000, 6000]);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).exitCode).toBe(6);
    expect((err as RateLimitedError).requestId).toBe("r2");
    expect((err as RateLimitedError).hint).toContain(
      "Retry after 1970-01-01T00:00:11.000Z (in 1s)",
    );
    expect(notes[0]).toContain("waiting 4s as Retry-After asks");
  });

  it("a response that breaks HTTP/1.1 framing is retried once, progress or not", async () => {
    const { budget, sleeps } = setup(() => 0);
    const framing = new NetworkError("TE and CL", { code: "bad_framing", requestId: "r3" });
    await budget.wait({ kind: "network", error: framing });
    budget.resetFailures();
    await expect(budget.wait({ kind: "network", error: framing })).rejects.toBe(framing);
    expect(sleeps).toHaveLength(1);
  });

  it("a 4th attempt that goes silent ends the operation even when each made progress", async () => {
    const { budget, sleeps } = setup(() => 0);
    const silent = new NetworkError("sent nothing for too long", {
      code: "timeout",
      requestId: "r4",
    });
    for (let i = 0; i < 3; i++) {
      await budget.wait({ kind: "network", error: silent });
      budget.resetFailures();
    }
    const err = await budget.wait({ kind: "network", error: silent }).catch((e: unknown) => e);
    expect(sleeps).toHaveLength(3);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: "timeout", exitCode: 7, requestId: "r4" });
    expect((err as NetworkError).message).toBe(
      "gave up after 4 attempts that went silent: sent nothing for too long",
    );
  });

  it("429 waits do not use up the 5xx tries", async () => {
    const { budget } = setup(() => 0);
    for (let i = 0; i < 10; i++) await budget.wait(limited(1));
    for (let i = 0; i < 4; i++) await budget.wait(server());
    await expect(budget.wait(server())).rejects.toBeInstanceOf(ApiError);
  });
});

describe("isRetryableStatus", () => {
  it("retries 500/502/503/504 only", () => {
    expect([500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 416, 429, 501].some(isRetryableStatus)).toBe(false);
  });
});
