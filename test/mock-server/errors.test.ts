/** One test per row of the spec's error table (Errors), over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { call, cdnUrlFor, errorOf, hasNoRateHeaders, type Reply } from "./helpers.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({
    limits: { auth: { quota: 1000, windowSeconds: 60 }, download: { quota: 3, windowSeconds: 60 } },
  });
});
afterAll(() => mock.close());

function expectError(r: Reply, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  const e = errorOf(r);
  expect(e.code).toBe(code);
  expect(typeof e.message).toBe("string");
  expect(e.message.length).toBeGreaterThan(0);
  expect(e.request_id).toBe(r.headers.get("x-request-id"));
}

const key = (id: string) => {
  const k = mock.keys[id];
  if (k === undefined) throw new Error(`no key ${id}`);
  return k;
};

describe("error table", () => {
  it("missing_api_key 401: no key on the request", async () => {
    expectError(await call(mock, "/api/v1/me"), 401, "missing_api_key");
  });

  it("invalid_api_key 401: malformed, unknown, truncated, or a license key", async () => {
    const demo = mock.apiKey;
    const unknown = `svc_live_${"A".repeat(32)}_00000000`;
    const badSum = `${demo.slice(0, -1)}${demo.endsWith("0") ? "1" : "0"}`;
    for (const k of ["nonsense", unknown, demo.slice(0, -4), badSum, mock.licenseKey, `${demo}x`]) {
      expectError(await call(mock, "/api/v1/me", { key: k }), 401, "invalid_api_key");
    }
    const basic = await call(mock, "/api/v1/me", { headers: { Authorization: `Basic ${demo}` } });
    expectError(basic, 401, "invalid_api_key");
  });

  it("revoked_api_key 401", async () => {
    expectError(
      await call(mock, "/api/v1/me", { key: key("key_revoked") }),
      401,
      "revoked_api_key",
    );
  });

  it("expired_api_key 401", async () => {
    expectError(
      await call(mock, "/api/v1/me", { key: key("key_expired") }),
      401,
      "expired_api_key",
    );
  });

  it("api_disabled 403 on authenticated routes (account switch), without rate-limit headers", async () => {
    const r = await call(mock, "/api/v1/packs", { key: key("key_api_disabled") });
    expectError(r, 403, "api_disabled");
    expect(hasNoRateHeaders(r)).toBe(true);
  });

  it("api_disabled 403 on the public catalog while the API is switched off", async () => {
    mock.set({ apiDisabled: true });
    try {
      expectError(await call(mock, "/api/v1/catalog/packs"), 403, "api_disabled");
      expectError(await call(mock, "/api/v1/me", { key: mock.apiKey }), 403, "api_disabled");
    } finally {
      mock.set({ apiDisabled: false });
    }
    expect((await call(mock, "/api/v1/catalog/packs")).status).toBe(200);
  });

  it("not_eligible 403: the account has no purchase; no rate-limit headers", async () => {
    const r = await call(mock, "/api/v1/me", { key: key("key_not_eligible") });
    expectError(r, 403, "not_eligible");
    expect(hasNoRateHeaders(r)).toBe(true);
  });

  it("blocked 403: message exactly 'Access denied', decided before anything else, no rate-limit headers", async () => {
    for (const path of ["/api/v1/me", "/api/v1/packs/space-station/download", "/api/v1/orders"]) {
      const r = await call(mock, path, { key: key("key_blocked"), via: "x-api-key" });
      expectError(r, 403, "blocked");
      expect(errorOf(r).message).toBe("Access denied");
      expect(hasNoRateHeaders(r)).toBe(true);
    }
    // even a revoked key of a blocked account answers blocked
    mock.revokeKey("key_blocked");
    expectError(await call(mock, "/api/v1/me", { key: key("key_blocked") }), 403, "blocked");
  });

  it("insufficient_scope 403: downloads need downloads:read", async () => {
    const r = await call(mock, "/api/v1/packs/low-poly-forest/download", {
      key: key("key_catalog_only"),
    });
    expectError(r, 403, "insufficient_scope");
    const a = await call(mock, "/api/v1/assets/free-sample-cube/download", {
      key: key("key_catalog_only"),
    });
    expectError(a, 403, "insufficient_scope");
  });

  it("not_entitled 403: the item exists but is not among the purchases (with rate-limit headers)", async () => {
    const r = await call(mock, "/api/v1/packs/space-station/download", { key: mock.apiKey });
    expectError(r, 403, "not_entitled");
    expect(r.headers.get("ratelimit-policy")).toBe('"download";q=3;w=60');
    mock.resetLimits();
    const a = await call(mock, "/api/v1/assets/station-airlock/download", { key: mock.apiKey });
    expectError(a, 403, "not_entitled");
  });

  it("not_found 404: unknown, coming-soon and archived items", async () => {
    mock.resetLimits();
    for (const slug of ["no-such-pack", "cyberpunk-city", "retro-vehicles"]) {
      const r = await call(mock, `/api/v1/packs/${slug}/download`, { key: mock.apiKey });
      expectError(r, 404, "not_found");
      expect(r.headers.get("x-ratelimit-limit")).toBe("3");
    }
    mock.resetLimits();
    for (const slug of ["no-such-asset", "cyberpunk-neon-sign", "retro-pickup"]) {
      expectError(
        await call(mock, `/api/v1/assets/${slug}/download`, { key: mock.apiKey }),
        404,
        "not_found",
      );
    }
  });

  it("file_unavailable 404: edition=authoring on a pack without one; an asset without file", async () => {
    mock.resetLimits();
    const r = await call(mock, "/api/v1/packs/sci-fi-props/download?edition=authoring", {
      key: mock.apiKey,
    });
    expectError(r, 404, "file_unavailable");
    const a = await call(mock, "/api/v1/assets/forest-broken-stump/download", { key: mock.apiKey });
    expectError(a, 404, "file_unavailable");
  });

  it("range_not_satisfiable 416 with Content-Range: bytes */SIZE", async () => {
    mock.resetLimits();
    const info = await mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    const url = await cdnUrlFor(mock, "/api/v1/packs/desert-rocks/download");
    const r = await call(mock, url, { headers: { Range: `bytes=${info.size}-` } });
    expectError(r, 416, "range_not_satisfiable");
    expect(r.headers.get("content-range")).toBe(`bytes */${info.size}`);
  });

  it("rate_limited 429 with Retry-After in whole seconds", async () => {
    mock.resetLimits();
    for (let i = 0; i < 3; i++) {
      expect(
        (await call(mock, "/api/v1/packs/desert-rocks/download", { key: mock.apiKey })).status,
      ).toBe(302);
    }
    const r = await call(mock, "/api/v1/packs/desert-rocks/download", { key: mock.apiKey });
    expectError(r, 429, "rate_limited");
    expect(r.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  });

  it("internal_error 500 (fault), without rate-limit headers", async () => {
    mock.set({ faults: { serverError: { count: 1 } } });
    const r = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expectError(r, 500, "internal_error");
    expect(hasNoRateHeaders(r)).toBe(true);
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey })).status).toBe(200);
    mock.set({ faults: {} });
  });
});
