/** Endpoints and their shapes (spec, Resources and Endpoints), auth headers and the request id rule. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { call, errorOf } from "./helpers.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ extraPacks: 120 });
});
afterAll(() => mock.close());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
type Page = { data: Record<string, unknown>[]; pagination: Record<string, unknown> };

describe("endpoints", () => {
  it("GET /v1/me: account, entitlements, key (preview only, never the full key)", async () => {
    const r = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expect(r.status).toBe(200);
    const d = (r.json as { data: Record<string, Record<string, unknown>> }).data;
    expect(d.account).toEqual({ id: "usr_demo", email: "demo@example.com", name: "Demo Artist" });
    expect(d.entitlements?.lifetime).toBe(false);
    expect(d.entitlements?.pack_count).toBe(125);
    expect(d.entitlements?.owned_product_slugs).toHaveLength(125);
    expect(d.key?.id).toMatch(/^key_/);
    expect(d.key?.scopes).toEqual(["catalog:read", "downloads:read"]);
    expect(mock.apiKey.startsWith(String(d.key?.preview))).toBe(true);
    expect(String(d.key?.preview).length).toBeLessThan(mock.apiKey.length);
    expect(d.key?.created_at).toMatch(ISO_MS);
    expect(d.key?.last_used_at).toMatch(ISO_MS);
    expect(r.body.toString("utf8")).not.toContain(mock.apiKey);
  });

  it("both auth headers: Authorization: Bearer and X-API-Key", async () => {
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey, via: "x-api-key" })).status).toBe(
      200,
    );
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey, via: "bearer" })).status).toBe(200);
  });

  it("lifetime account: entitlements.lifetime true and every published pack", async () => {
    const r = await call(mock, "/api/v1/me", { key: mock.keys.key_lifetime ?? "" });
    const e = (
      r.json as { data: { entitlements: { lifetime: boolean; owned_product_slugs: string[] } } }
    ).data.entitlements;
    expect(e.lifetime).toBe(true);
    expect(e.owned_product_slugs).toContain("space-station");
    expect(e.owned_product_slugs).not.toContain("cyberpunk-city");
  });

  it("GET /v1/packs: default limit 50, 100 accepted, max 100, cursor pagination to the end", async () => {
    const first = (await call(mock, "/api/v1/packs", { key: mock.apiKey })).json as Page;
    expect(first.pagination).toMatchObject({ limit: 50, offset: 0, total: 125, has_more: true });
    expect(first.data).toHaveLength(50);
    const big = (await call(mock, "/api/v1/packs?limit=500", { key: mock.apiKey })).json as Page;
    expect(big.pagination.limit).toBe(100);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const p = (await call(mock, `/api/v1/packs?limit=100${q}`, { key: mock.apiKey }))
        .json as Page;
      seen.push(...p.data.map((x) => String(x.slug)));
      cursor = p.pagination.next_cursor as string | null;
      expect(p.pagination.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(125);
    const pack = first.data.find((p) => p.slug === "low-poly-forest");
    expect(pack).toMatchObject({
      name: "Low-Poly Forest",
      asset_count: 24,
      order_id: "ord_1001",
      downloads: {
        bundle: `${mock.baseUrl}/api/v1/packs/low-poly-forest/download`,
        authoring: `${mock.baseUrl}/api/v1/packs/low-poly-forest/download?edition=authoring`,
      },
    });
    expect(pack?.purchased_at).toMatch(ISO_MS);
    expect(first.data.map((p) => p.slug)).not.toContain("cyberpunk-city");
    expect(first.data.map((p) => p.slug)).not.toContain("retro-vehicles");
  });

  it("bad limit or cursor → 400 invalid_request", async () => {
    expect(errorOf(await call(mock, "/api/v1/packs?limit=0", { key: mock.apiKey })).code).toBe(
      "invalid_request",
    );
    expect(errorOf(await call(mock, "/api/v1/packs?cursor=zzz", { key: mock.apiKey })).code).toBe(
      "invalid_request",
    );
  });

  it("GET /v1/assets: slug, preview_url, download_url; paginated", async () => {
    const p = (await call(mock, "/api/v1/assets", { key: mock.apiKey })).json as Page;
    expect(p.pagination).toMatchObject({ offset: 0, has_more: false, next_cursor: null });
    const a = p.data.find((x) => x.slug === "free-sample-cube");
    expect(a).toMatchObject({
      download_url: `${mock.baseUrl}/api/v1/assets/free-sample-cube/download`,
      tier: "free",
    });
    expect(String(a?.preview_url)).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/previews\/free-sample-cube\.glb$/,
    );
  });

  it("GET /v1/orders: an order with amount null, paid and not-paid statuses", async () => {
    const p = (await call(mock, "/api/v1/orders", { key: mock.apiKey })).json as Page;
    const old = p.data.find((o) => o.id === "ord_0950");
    expect(old).toMatchObject({ amount: null, status: "paid" });
    const d = (await call(mock, "/api/v1/orders", { key: mock.keys.key_disputed ?? "" }))
      .json as Page;
    expect(d.data.map((o) => o.status).sort()).toEqual(["not_paid", "paid"]);
  });

  it("GET /v1/catalog/*: public, no key needed; unknown path → 404", async () => {
    const packs = (await call(mock, "/api/v1/catalog/packs")).json as Page;
    expect(packs.data.map((p) => p.slug)).toContain("space-station");
    const one = await call(mock, "/api/v1/catalog/packs/low-poly-forest");
    expect(one.status).toBe(200);
    expect((await call(mock, "/api/v1/catalog/packs/cyberpunk-city")).status).toBe(404);
    expect((await call(mock, "/api/v1/catalog/nope")).status).toBe(404);
  });

  it("scopes: metadata reads need any scope; a downloads-only key may list packs and download", async () => {
    const k = mock.keys.key_downloads_only ?? "";
    expect((await call(mock, "/api/v1/packs", { key: k })).status).toBe(200);
    expect((await call(mock, "/api/v1/packs/low-poly-forest/download", { key: k })).status).toBe(
      302,
    );
    expect(
      (await call(mock, "/api/v1/packs", { key: mock.keys.key_catalog_only ?? "" })).status,
    ).toBe(200);
  });

  it("unknown routes → 404 not_found; other methods → 405", async () => {
    expect(errorOf(await call(mock, "/api/v1/nope", { key: mock.apiKey })).code).toBe("not_found");
    expect(
      (await call(mock, "/api/v1/me", { key: mock.apiKey, method: "POST", body: "" })).status,
    ).toBe(405);
  });
});

describe("x-request-id", () => {
  it("echoes a valid client id (8–64 of [A-Za-z0-9_-]) on success, error and CDN responses", async () => {
    const id = "my-Script_run-0001";
    const ok = await call(mock, "/api/v1/me", {
      key: mock.apiKey,
      headers: { "x-request-id": id },
    });
    expect(ok.headers.get("x-request-id")).toBe(id);
    const err = await call(mock, "/api/v1/me", { headers: { "x-request-id": id } });
    expect(err.headers.get("x-request-id")).toBe(id);
    expect(errorOf(err).request_id).toBe(id);
    const redirect = await call(mock, "/api/v1/packs/low-poly-forest/download", {
      key: mock.apiKey,
    });
    const cdn = await call(mock, redirect.headers.get("location") ?? "", {
      headers: { "x-request-id": id },
    });
    expect(cdn.headers.get("x-request-id")).toBe(id);
    expect(
      (await call(mock, "/api/v1/me", { headers: { "x-request-id": "a".repeat(64) } })).headers.get(
        "x-request-id",
      ),
    ).toBe("a".repeat(64));
  });

  it("generates one when the client's is missing, too short, too long or has other characters", async () => {
    const seen = new Set<string>();
    for (const bad of [undefined, "short", "a".repeat(65), "has space 123", "semi;colon1"]) {
      const headers: Record<string, string> = bad === undefined ? {} : { "x-request-id": bad };
      const r = await call(mock, "/api/v1/nope", { headers });
      const got = r.headers.get("x-request-id") ?? "";
      expect(got).not.toBe(bad);
      expect(got).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
      expect(errorOf(r).request_id).toBe(got);
      seen.add(got);
    }
    expect(seen.size).toBe(5);
  });

  it("the request log has origin, method, url, headers, status, bytes sent and request id", async () => {
    mock.clearLog();
    await call(mock, "/api/v1/packs/desert-rocks/download", {
      key: mock.apiKey,
      follow: true,
      headers: { "x-request-id": "log-test-0001" },
    });
    expect(mock.requests.map((e) => `${e.origin} ${e.method} ${e.status}`)).toEqual([
      "api GET 302",
      "cdn GET 200",
    ]);
    const [api, cdn] = mock.requests;
    expect(api?.url).toBe("/api/v1/packs/desert-rocks/download");
    expect(api?.headers["x-request-id"]).toBe("log-test-0001");
    expect(api?.requestId).toBe("log-test-0001");
    expect(cdn?.bytesSent).toBe(1024 * 1024);
    expect(api?.body).toBeNull();
  });
});
