/** State transitions (spec, States and transitions) driven with `set()` mid-test. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { type ManualClock, manualClock } from "../helpers/clock.js";
import { call, errorOf } from "./helpers.js";

let mock: MockService;
let clock: ManualClock;
beforeEach(async () => {
  clock = manualClock();
  mock = await startMockService({ now: clock.now });
});
afterEach(() => mock.close());

const code = async (path: string, key: string) => {
  const r = await call(mock, path, { key });
  return r.status < 400 ? r.status : `${r.status} ${errorOf(r).code}`;
};

describe("API key states", () => {
  it("active → revoked: calls answer 401 revoked_api_key", async () => {
    expect(await code("/api/v1/me", mock.apiKey)).toBe(200);
    mock.revokeKey(mock.apiKey);
    expect(await code("/api/v1/me", mock.apiKey)).toBe("401 revoked_api_key");
    expect(await code("/api/v1/packs/low-poly-forest/download", mock.apiKey)).toBe(
      "401 revoked_api_key",
    );
  });

  it("active → expired when the expiry passes: 401 expired_api_key", async () => {
    const k = mock.keys.key_expiring ?? "";
    expect(await code("/api/v1/me", k)).toBe(200);
    mock.set({ keys: { key_expiring: { expires_at: new Date(clock.now() + 300).toISOString() } } });
    expect(await code("/api/v1/me", k)).toBe(200);
    clock.advance(350);
    expect(await code("/api/v1/me", k)).toBe("401 expired_api_key");
    mock.expireKey(mock.apiKey);
    expect(await code("/api/v1/me", mock.apiKey)).toBe("401 expired_api_key");
  });

  it("a never-expiring key stays active", async () => {
    const r = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expect((r.json as { data: { key: { expires_at: unknown } } }).data.key.expires_at).toBeNull();
  });
});

describe("account switches and item states", () => {
  it("the API switched off and on again", async () => {
    mock.set({ apiDisabled: true });
    expect(await code("/api/v1/me", mock.apiKey)).toBe("403 api_disabled");
    mock.set({ apiDisabled: false });
    expect(await code("/api/v1/me", mock.apiKey)).toBe(200);
    mock.set({ accounts: { usr_demo: { apiDisabled: true } } });
    expect(await code("/api/v1/me", mock.apiKey)).toBe("403 api_disabled");
    expect(await code("/api/v1/me", mock.keys.key_lifetime ?? "")).toBe(200);
  });

  it("blocking an account takes precedence over every other answer", async () => {
    mock.set({ accounts: { usr_demo: { blocked: true } }, apiDisabled: true });
    mock.revokeKey(mock.apiKey);
    expect(await code("/api/v1/me", mock.apiKey)).toBe("403 blocked");
  });

  it("pack availability published → coming-soon / archived → published", async () => {
    const path = "/api/v1/packs/sci-fi-props/download";
    expect(await code(path, mock.apiKey)).toBe(302);
    mock.set({ packs: { "sci-fi-props": { availability: "archived" } } });
    expect(await code(path, mock.apiKey)).toBe("404 not_found");
    const list = await call(mock, "/api/v1/packs", { key: mock.apiKey });
    expect((list.json as { data: { slug: string }[] }).data.map((p) => p.slug)).not.toContain(
      "sci-fi-props",
    );
    mock.set({ packs: { "sci-fi-props": { availability: "coming-soon" } } });
    expect(await code(path, mock.apiKey)).toBe("404 not_found");
    mock.set({ packs: { "sci-fi-props": { availability: "published" } } });
    expect(await code(path, mock.apiKey)).toBe(302);
  });

  it("order paid → not paid (dispute) → paid", async () => {
    const path = "/api/v1/packs/medieval-village/download";
    mock.set({ orders: { ord_1002: { paid: false } } });
    expect(await code(path, mock.apiKey)).toBe("403 not_entitled");
    expect(await code("/api/v1/assets/village-well/download", mock.apiKey)).toBe(
      "403 not_entitled",
    );
    expect(await code("/api/v1/assets/village-lamp-post/download", mock.apiKey)).toBe(302); // free asset
    mock.set({ orders: { ord_1002: { paid: true } } });
    expect(await code(path, mock.apiKey)).toBe(302);
  });

  it("granting lifetime access makes every published pack downloadable", async () => {
    expect(await code("/api/v1/packs/space-station/download", mock.apiKey)).toBe(
      "403 not_entitled",
    );
    mock.set({ accounts: { usr_demo: { lifetime: true } } });
    expect(await code("/api/v1/packs/space-station/download", mock.apiKey)).toBe(302);
  });

  it("set() rejects unknown ids instead of silently ignoring them", () => {
    expect(() => mock.set({ packs: { nope: { version: 3 } } })).toThrow(/unknown pack/);
    expect(() => mock.revokeKey("key_nope")).toThrow(/unknown API key/);
  });
});
