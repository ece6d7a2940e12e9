/** Limits (spec, Limits table and rules): policies, keys, headers present/absent, 429 + Retry-After. */
import { afterEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { manualClock } from "../helpers/clock.js";
import { call, errorOf, hasNoRateHeaders, rateHeaders } from "./helpers.js";

let mock: MockService | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const start = async (limits: Parameters<typeof startMockService>[0] = {}) => {
  mock = await startMockService(limits);
  return mock;
};
const keyOf = (m: MockService, id: string) => m.keys[id] ?? "";

describe("limits", () => {
  it("defaults are the spec's table: read 120, download 30, public 120 per 60 s", async () => {
    const m = await start();
    const me = await call(m, "/api/v1/me", { key: m.apiKey });
    expect(rateHeaders(me)).toEqual({
      policy: '"read";q=120;w=60',
      rate: '"read";r=119;t=60',
      limit: "120",
      remaining: "119",
      reset: "60",
      retryAfter: null,
    });
    const dl = await call(m, "/api/v1/packs/desert-rocks/download", { key: m.apiKey });
    expect(dl.headers.get("ratelimit-policy")).toBe('"download";q=30;w=60');
    expect(dl.headers.get("ratelimit")).toBe('"download";r=29;t=60');
    const pub = await call(m, "/api/v1/catalog/packs");
    expect(pub.headers.get("ratelimit-policy")).toBe('"public";q=120;w=60');
    const bad = await call(m, "/api/v1/me", { key: "svc_live_wrong" });
    expect(bad.headers.get("ratelimit-policy")).toBe('"auth";q=20;w=60');
  });

  it("read budget: headers count down on every response that reached the limiter, then 429", async () => {
    const m = await start({ limits: { read: { quota: 3, windowSeconds: 30 } } });
    const r1 = await call(m, "/api/v1/me", { key: m.apiKey });
    const r2 = await call(m, "/api/v1/packs", { key: m.apiKey });
    const r3 = await call(m, "/api/v1/orders", { key: m.apiKey });
    expect([r1, r2, r3].map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual([
      "2",
      "1",
      "0",
    ]);
    const r4 = await call(m, "/api/v1/assets", { key: m.apiKey });
    expect(r4.status).toBe(429);
    expect(errorOf(r4).code).toBe("rate_limited");
    const h = rateHeaders(r4);
    expect(h.remaining).toBe("0");
    expect(h.rate).toMatch(/^"read";r=0;t=\d+$/);
    expect(Number(h.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(h.retryAfter)).toBeLessThanOrEqual(30);
    expect(Number.isInteger(Number(h.retryAfter))).toBe(true);
  });

  it("a 404 and a 403 not_entitled carry the headers; blocked, 500, api_disabled, not_eligible do not", async () => {
    const m = await start();
    const nf = await call(m, "/api/v1/packs/no-such/download", { key: m.apiKey });
    expect(nf.status).toBe(404);
    expect(nf.headers.get("x-ratelimit-limit")).toBe("30");
    const ne = await call(m, "/api/v1/packs/space-station/download", { key: m.apiKey });
    expect(ne.status).toBe(403);
    expect(ne.headers.get("ratelimit")).toMatch(/^"download";r=28;t=\d+$/);
    for (const id of ["key_blocked", "key_api_disabled", "key_not_eligible"]) {
      const r = await call(m, "/api/v1/me", { key: keyOf(m, id) });
      expect(r.status).toBe(403);
      expect(hasNoRateHeaders(r)).toBe(true);
    }
    m.set({ faults: { serverError: { count: 1 } } });
    expect(hasNoRateHeaders(await call(m, "/api/v1/me", { key: m.apiKey }))).toBe(true);
  });

  it("reads and downloads have separate budgets", async () => {
    const m = await start({
      limits: { read: { quota: 2, windowSeconds: 30 }, download: { quota: 2, windowSeconds: 30 } },
    });
    for (let i = 0; i < 2; i++) await call(m, "/api/v1/me", { key: m.apiKey });
    expect((await call(m, "/api/v1/me", { key: m.apiKey })).status).toBe(429);
    const dl = await call(m, "/api/v1/packs/desert-rocks/download", { key: m.apiKey });
    expect(dl.status).toBe(302);
    expect(dl.headers.get("x-ratelimit-remaining")).toBe("1");
  });

  it("read/download budgets are per API key; public and auth are per IP and separate", async () => {
    const m = await start({
      limits: { read: { quota: 1, windowSeconds: 30 }, public: { quota: 2, windowSeconds: 30 } },
    });
    expect((await call(m, "/api/v1/me", { key: m.apiKey })).status).toBe(200);
    expect((await call(m, "/api/v1/me", { key: m.apiKey })).status).toBe(429);
    const other = await call(m, "/api/v1/me", { key: keyOf(m, "key_downloads_only") });
    expect(other.status).toBe(200);
    // public budget is untouched by the reads above, and keyed by IP (no key needed)
    expect((await call(m, "/api/v1/catalog/packs")).status).toBe(200);
    expect((await call(m, "/api/v1/catalog/assets", { key: m.apiKey })).status).toBe(200);
    const p3 = await call(m, "/api/v1/catalog/packs");
    expect(p3.status).toBe(429);
    expect(p3.headers.get("ratelimit-policy")).toBe('"public";q=2;w=30');
    // and a spent public budget does not affect an authenticated read of another key
    expect((await call(m, "/api/v1/me", { key: keyOf(m, "key_lifetime") })).status).toBe(200);
  });

  it("failed authentication is limited per IP: a client looping on invalid_api_key gets 429", async () => {
    const m = await start({ limits: { auth: { quota: 3, windowSeconds: 30 } } });
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call(m, "/api/v1/me", { key: `svc_live_${"x".repeat(10)}` });
      codes.push(`${r.status} ${errorOf(r).code}`);
      if (r.status === 401) expect(r.headers.get("ratelimit-policy")).toBe('"auth";q=3;w=30');
    }
    expect(codes).toEqual([
      "401 invalid_api_key",
      "401 invalid_api_key",
      "401 invalid_api_key",
      "429 rate_limited",
      "429 rate_limited",
    ]);
    // missing keys count as failed attempts too
    const miss = await call(m, "/api/v1/packs");
    expect(miss.status).toBe(429);
    expect(miss.headers.get("retry-after")).toMatch(/^\d+$/);
    // a valid key from the same IP still works: only failed attempts are limited
    expect((await call(m, "/api/v1/me", { key: m.apiKey })).status).toBe(200);
  });

  it("the window resets: after Retry-After seconds the budget is back", async () => {
    const clock = manualClock();
    const m = await start({ limits: { download: { quota: 1, windowSeconds: 1 } }, now: clock.now });
    expect((await call(m, "/api/v1/packs/desert-rocks/download", { key: m.apiKey })).status).toBe(
      302,
    );
    const r = await call(m, "/api/v1/packs/desert-rocks/download", { key: m.apiKey });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("1");
    clock.advance(1050);
    const again = await call(m, "/api/v1/packs/desert-rocks/download", { key: m.apiKey });
    expect(again.status).toBe(302);
    expect(again.headers.get("ratelimit")).toBe('"download";r=0;t=1');
  });

  it("the legacy endpoint uses the download budget per license key", async () => {
    const m = await start({ limits: { download: { quota: 1, windowSeconds: 30 } } });
    const body = JSON.stringify({ licenseKey: m.licenseKey, packSlug: "low-poly-forest" });
    const opts = { method: "POST", body, headers: { "Content-Type": "application/json" } };
    const r1 = await call(m, "/api/download", opts);
    expect(r1.status).toBe(303);
    expect(r1.headers.get("ratelimit-policy")).toBe('"download";q=1;w=30');
    expect((await call(m, "/api/download", opts)).status).toBe(429);
  });
});
