import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";

// The service and every run share one manual clock: waits move it on instead of sleeping.
const clock = manualClock();

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({
    quiet: true,
    now: clock.now,
    extraPacks: 6,
    limits: { read: { quota: 3, windowSeconds: 1 } },
  });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.resetLimits();
  mock.clearLog();
});

const env = () => ({ SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey });

describe("pacing by the rate-limit headers", () => {
  it("a run of more reads than the quota never gets a 429, and says it waits", async () => {
    const r = await runCli(["api", "packs?limit=1", "--paginate"], { env: env(), clock });
    expect(r.code).toBe(0);
    const items = JSON.parse(r.stdout) as { slug: string }[];
    expect(items.length).toBeGreaterThan(3 * 2);
    expect(mock.requests.length).toBe(items.length);
    expect(mock.requests.filter((q) => q.status === 429)).toEqual([]);
    expect(mock.requests.every((q) => q.status === 200)).toBe(true);
    expect(r.stderr).toMatch(/rate limit: read budget spent; waiting \ds for it to reset/);
    // the pages were merged in order, no duplicates
    expect(new Set(items.map((p) => p.slug)).size).toBe(items.length);
  });

  it("--quiet waits just the same but says nothing", async () => {
    const r = await runCli(["--quiet", "api", "packs?limit=2", "--paginate"], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(0);
    expect(mock.requests.filter((q) => q.status === 429)).toEqual([]);
    expect(r.stderr).toBe("");
  });

  it("--max-wait 0 refuses to wait for a reset: exit 6 before provoking a 429", async () => {
    const r = await runCli(["--max-wait", "0", "api", "packs?limit=1", "--paginate"], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("code rate_limited");
    expect(mock.requests).toHaveLength(3);
    expect(mock.requests.filter((q) => q.status === 429)).toEqual([]);
  });

  it("separate runs do not share the pacer: a run that meets a 429 waits Retry-After and succeeds", async () => {
    const own = await startMockService({
      quiet: true,
      now: clock.now,
      limits: { read: { quota: 1, windowSeconds: 3 } },
    });
    try {
      const e = { SVC_BASE_URL: own.baseUrl, SVC_API_KEY: own.apiKey };
      const first = await runCli(["api", "me"], { env: e, clock });
      expect(first.code).toBe(0);
      const second = await runCli(["api", "me"], { env: e, clock });
      expect(second.code).toBe(0);
      expect(own.requests.map((q) => q.status)).toEqual([200, 429, 200]);
      expect(second.stderr).toContain("as Retry-After asks");
    } finally {
      await own.close();
    }
  });
});
