/** Downloads (spec, pack and asset download): redirect, signed CDN URLs, ETag, Range, 304. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { call, cdnUrlFor, errorOf, sha256 } from "./helpers.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ limits: { download: { quota: 10_000, windowSeconds: 60 } } });
});
afterAll(() => mock.close());

const PACK = "/api/v1/packs/low-poly-forest/download";

describe("downloads", () => {
  it("the API route answers 302 to the separate CDN origin with an expiring signed URL", async () => {
    const r = await call(mock, PACK, { key: mock.apiKey });
    expect(r.status).toBe(302);
    const loc = new URL(r.headers.get("location") ?? "");
    expect(loc.origin).toBe(mock.cdnUrl);
    expect(loc.origin).not.toBe(mock.baseUrl);
    expect(Number(loc.searchParams.get("expires"))).toBeGreaterThan(Date.now() / 1000);
    expect(loc.searchParams.get("sig")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("full download: 200, strong ETag, Accept-Ranges, Content-Disposition, bytes equal fileInfo", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const r = await call(mock, PACK, { key: mock.apiKey, follow: true });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(info.etag);
    expect(info.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    expect(r.headers.get("content-type")).toBe("application/zip");
    expect(r.headers.get("content-disposition")).toBe(
      `attachment; filename="low-poly-forest.zip"; filename*=UTF-8''low-poly-forest.zip`,
    );
    expect(r.headers.get("content-length")).toBe(String(info.size));
    expect(r.body.length).toBe(info.size);
    expect(info.size).toBe(2 * 1024 * 1024);
    expect(sha256(r.body)).toBe(info.sha256);
    expect(info.filename).toBe("low-poly-forest.zip");
  });

  it("the credentials are not forwarded to the CDN by the redirect (logged headers)", async () => {
    mock.clearLog();
    await call(mock, PACK, { key: mock.apiKey, follow: true });
    const cdn = mock.requests.filter((e) => e.origin === "cdn");
    expect(cdn).toHaveLength(1);
    expect(cdn[0]?.headers.authorization).toBeUndefined();
    const api = mock.requests.find((e) => e.origin === "api");
    expect(api?.headers.authorization).toBe(`Bearer ${mock.apiKey}`);
  });

  it("authoring edition and asset download: own ETags and names; GLB served as model/gltf-binary", async () => {
    const a = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest", edition: "authoring" });
    const s = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    expect(a.etag).not.toBe(s.etag);
    expect(a.filename).toBe("low-poly-forest-authoring.zip");
    const r = await call(mock, `${PACK}?edition=authoring`, { key: mock.apiKey, follow: true });
    expect(sha256(r.body)).toBe(a.sha256);
    const g = await call(mock, "/api/v1/assets/forest-pine-tree/download", {
      key: mock.apiKey,
      follow: true,
    });
    const gi = await mock.fileInfo({ kind: "asset", slug: "forest-pine-tree" });
    expect(g.status).toBe(200);
    expect(g.headers.get("content-type")).toBe("model/gltf-binary");
    expect(sha256(g.body)).toBe(gi.sha256);
    expect(g.headers.get("content-disposition")).toContain('filename="forest-pine-tree.glb"');
  });

  it("Range bytes=N- and bytes=N-M answer 206 with Content-Range and the same bytes as the full file", async () => {
    const url = await cdnUrlFor(mock, PACK);
    const full = (await call(mock, url)).body;
    const size = full.length;
    const tail = await call(mock, url, { headers: { Range: "bytes=1000000-" } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe(`bytes 1000000-${size - 1}/${size}`);
    expect(tail.body.equals(full.subarray(1000000))).toBe(true);
    // a range across a 1 MiB block boundary and an entry boundary
    const mid = await call(mock, url, { headers: { Range: "bytes=1048570-1048600" } });
    expect(mid.status).toBe(206);
    expect(mid.headers.get("content-range")).toBe(`bytes 1048570-1048600/${size}`);
    expect(mid.headers.get("content-length")).toBe("31");
    expect(mid.body.equals(full.subarray(1048570, 1048601))).toBe(true);
    const last = await call(mock, url, { headers: { Range: `bytes=${size - 1}-${size + 50}` } });
    expect(last.status).toBe(206);
    expect(last.body.equals(full.subarray(size - 1))).toBe(true);
  });

  it("If-Range with the current ETag honours the range; with another ETag answers the full 200", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const url = await cdnUrlFor(mock, PACK);
    const same = await call(mock, url, { headers: { Range: "bytes=10-", "If-Range": info.etag } });
    expect(same.status).toBe(206);
    const other = await call(mock, url, { headers: { Range: "bytes=10-", "If-Range": '"stale"' } });
    expect(other.status).toBe(200);
    expect(other.body.length).toBe(info.size);
    expect(other.headers.get("content-range")).toBeNull();
  });

  it("416 for a range starting at or past the end, with Content-Range: bytes */SIZE", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const url = await cdnUrlFor(mock, PACK);
    for (const start of [info.size, info.size + 100]) {
      const r = await call(mock, url, { headers: { Range: `bytes=${start}-` } });
      expect(r.status).toBe(416);
      expect(r.headers.get("content-range")).toBe(`bytes */${info.size}`);
      expect(errorOf(r).code).toBe("range_not_satisfiable");
    }
  });

  it("If-None-Match with the ETag answers 304; switched off it answers 200 with the same ETag", async () => {
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const url = await cdnUrlFor(mock, PACK);
    const r = await call(mock, url, { headers: { "If-None-Match": info.etag } });
    expect(r.status).toBe(304);
    expect(r.headers.get("etag")).toBe(info.etag);
    expect(r.body.length).toBe(0);
    // through the API route too (the header survives the redirect)
    const viaApi = await call(mock, PACK, {
      key: mock.apiKey,
      follow: true,
      headers: { "If-None-Match": info.etag },
    });
    expect(viaApi.status).toBe(304);
    expect((await call(mock, url, { headers: { "If-None-Match": '"other"' } })).status).toBe(200);
    mock.set({ ifNoneMatch: false });
    try {
      const off = await call(mock, url, { headers: { "If-None-Match": info.etag } });
      expect(off.status).toBe(200);
      expect(off.headers.get("etag")).toBe(info.etag);
    } finally {
      mock.set({ ifNoneMatch: true });
    }
  });

  it("bumping a pack's version changes the bytes and the ETag", async () => {
    const before = await mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    expect(mock.bumpPackVersion("desert-rocks")).toBe(2);
    const after = await mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    expect(after.etag).not.toBe(before.etag);
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.size).toBe(before.size);
    const r = await call(mock, "/api/v1/packs/desert-rocks/download", {
      key: mock.apiKey,
      follow: true,
    });
    expect(r.headers.get("etag")).toBe(after.etag);
    expect(sha256(r.body)).toBe(after.sha256);
    // resuming with the old ETag restarts from zero
    const url = await cdnUrlFor(mock, "/api/v1/packs/desert-rocks/download");
    const resumed = await call(mock, url, {
      headers: { Range: "bytes=100-", "If-Range": before.etag },
    });
    expect(resumed.status).toBe(200);
  });

  it("expired or tampered signed URLs answer 403 (410 if configured) with a small JSON body", async () => {
    mock.set({ signedUrlTtlSeconds: 0 });
    const expired = await cdnUrlFor(mock, PACK);
    mock.set({ signedUrlTtlSeconds: 300 });
    const r = await call(mock, expired);
    expect(r.status).toBe(403);
    expect(errorOf(r).code).toBe("url_expired");
    expect(r.body.length).toBeLessThan(300);
    mock.set({ expiredUrlStatus: 410 });
    expect((await call(mock, expired)).status).toBe(410);
    mock.set({ expiredUrlStatus: 403 });
    const good = new URL(await cdnUrlFor(mock, PACK));
    good.searchParams.set("sig", "0".repeat(64));
    const bad = await call(mock, good.toString());
    expect(bad.status).toBe(403);
    expect(errorOf(bad).code).toBe("invalid_signature");
    const unsigned = new URL(await cdnUrlFor(mock, PACK));
    unsigned.search = "";
    expect((await call(mock, unsigned.toString())).status).toBe(403);
  });

  it("free assets download with any valid downloads key; premium ones need the pack or lifetime", async () => {
    const disputed = mock.keys.key_disputed ?? "";
    const lifetime = mock.keys.key_lifetime ?? "";
    expect(
      (await call(mock, "/api/v1/assets/free-sample-cube/download", { key: disputed })).status,
    ).toBe(302);
    expect(
      (await call(mock, "/api/v1/assets/station-solar-panel/download", { key: mock.apiKey }))
        .status,
    ).toBe(302);
    expect(
      (await call(mock, "/api/v1/assets/station-airlock/download", { key: mock.apiKey })).status,
    ).toBe(403);
    expect(
      (await call(mock, "/api/v1/assets/station-airlock/download", { key: lifetime })).status,
    ).toBe(302);
    expect(
      (await call(mock, "/api/v1/packs/space-station/download", { key: lifetime })).status,
    ).toBe(302);
  });

  it("orders not paid: the pack stays listed but downloads answer 403 not_entitled", async () => {
    const disputed = mock.keys.key_disputed ?? "";
    const list = await call(mock, "/api/v1/packs", { key: disputed });
    const slugs = (list.json as { data: { slug: string }[] }).data.map((p) => p.slug);
    expect(slugs).toContain("ocean-creatures");
    const r = await call(mock, "/api/v1/packs/ocean-creatures/download", { key: disputed });
    expect(r.status).toBe(403);
    expect(errorOf(r).code).toBe("not_entitled");
    expect(
      (await call(mock, "/api/v1/assets/ocean-whale/download", { key: disputed })).status,
    ).toBe(403);
    // the paid order of the same account still downloads
    expect(
      (await call(mock, "/api/v1/packs/desert-rocks/download", { key: disputed })).status,
    ).toBe(302);
    mock.set({ orders: { ord_5001: { paid: true } } });
    expect(
      (await call(mock, "/api/v1/packs/ocean-creatures/download", { key: disputed })).status,
    ).toBe(302);
    mock.set({ orders: { ord_5001: { paid: false } } });
  });

  it("HEAD on the CDN gives the headers without a body", async () => {
    const url = await cdnUrlFor(mock, PACK);
    const r = await call(mock, url, { method: "HEAD" });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-length")).toBe(String(2 * 1024 * 1024));
    expect(r.body.length).toBe(0);
  });
});

describe("legacy POST /api/download", () => {
  const post = (body: unknown, contentType = "application/json") =>
    call(mock, "/api/download", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "Content-Type": contentType },
    });

  it("downloads a covered pack (303 to the CDN) and its authoring edition", async () => {
    const r = await post({ licenseKey: mock.licenseKey, packSlug: "low-poly-forest" });
    expect(r.status).toBe(303);
    const loc = r.headers.get("location") ?? "";
    expect(loc.startsWith(mock.cdnUrl)).toBe(true);
    const file = await call(mock, loc);
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    expect(sha256(file.body)).toBe(info.sha256);
    const a = await post({
      licenseKey: mock.licenseKey,
      packSlug: "low-poly-forest",
      edition: "authoring",
    });
    expect(a.status).toBe(303);
    expect(a.headers.get("location")).toContain("/authoring/");
  });

  it("downloads a covered asset; followed by fetch it yields the GLB", async () => {
    const r = await call(mock, "/api/download", {
      method: "POST",
      follow: true,
      body: JSON.stringify({ licenseKey: mock.licenseKey, assetSlug: "scifi-cargo-crate" }),
      headers: { "Content-Type": "application/json" },
    });
    expect(r.status).toBe(200);
    expect(r.body.toString("latin1", 0, 4)).toBe("glTF");
  });

  it("denials: not covered → 403 not_entitled; order not paid → 403 order_not_paid", async () => {
    const nc = await post({ licenseKey: mock.licenseKey, packSlug: "medieval-village" });
    expect(nc.status).toBe(403);
    expect(errorOf(nc).code).toBe("not_entitled");
    expect(errorOf(nc).request_id).toBe(nc.headers.get("x-request-id"));
    const unpaid = await post({
      licenseKey: mock.licenseKeys.lic_unpaid,
      packSlug: "ocean-creatures",
    });
    expect(unpaid.status).toBe(403);
    expect(errorOf(unpaid).code).toBe("order_not_paid");
    const life = await post({
      licenseKey: mock.licenseKeys.lic_lifetime,
      packSlug: "space-station",
    });
    expect(life.status).toBe(303);
  });

  it("bad requests and bad keys", async () => {
    expect(errorOf(await post({ licenseKey: mock.apiKey, packSlug: "low-poly-forest" })).code).toBe(
      "invalid_license_key",
    );
    expect((await post({ licenseKey: "SVC_NOPE", packSlug: "x" })).status).toBe(401);
    expect(errorOf(await post({ licenseKey: mock.licenseKey })).code).toBe("invalid_request");
    expect(
      errorOf(await post({ licenseKey: mock.licenseKey, packSlug: "a", assetSlug: "b" })).code,
    ).toBe("invalid_request");
    expect(
      errorOf(
        await post({
          licenseKey: mock.licenseKey,
          assetSlug: "scifi-cargo-crate",
          edition: "authoring",
        }),
      ).code,
    ).toBe("invalid_request");
    expect((await post("{not json")).status).toBe(400);
    expect(
      (await post({ licenseKey: mock.licenseKey, packSlug: "low-poly-forest" }, "text/plain"))
        .status,
    ).toBe(400);
    const fu = await post({
      licenseKey: mock.licenseKey,
      packSlug: "sci-fi-props",
      edition: "authoring",
    });
    expect(errorOf(fu).code).toBe("file_unavailable");
    const nf = await post({ licenseKey: mock.licenseKey, packSlug: "retro-vehicles" });
    expect(errorOf(nf).code).toBe("not_found");
    const get = await call(mock, "/api/download");
    expect(get.status).toBe(405);
  });

  it("the request log records the POST body", async () => {
    mock.clearLog();
    await post({ licenseKey: mock.licenseKey, packSlug: "low-poly-forest" });
    const e = mock.requests.find((x) => x.url === "/api/download");
    expect(e?.method).toBe("POST");
    expect(e?.body).toContain('"packSlug":"low-poly-forest"');
    expect(e?.status).toBe(303);
  });
});
