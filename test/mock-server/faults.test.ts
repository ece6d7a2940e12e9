/** Fault injection (docs/mock-service.md, "Fault injection"). */
import { request, type ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeLayout } from "../../src/mock-server/content.js";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { streamBytes } from "../../src/mock-server/stream-bytes.js";
import { call, cdnUrlFor, errorOf, sha256 } from "./helpers.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ limits: { download: { quota: 10_000, windowSeconds: 60 } } });
});
afterAll(() => mock.close());
beforeEach(() => mock.set({ faults: {} }));

const PACK = "/api/v1/packs/desert-rocks/download";

/** Raw GET that reports how many body bytes arrived and how the response ended. */
function rawGet(
  url: string,
): Promise<{ status: number; length: number; received: number; ended: "end" | "error" }> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      let received = 0;
      let done = false;
      const finish = (ended: "end" | "error") => {
        if (done) return;
        done = true;
        resolve({
          status: res.statusCode ?? 0,
          length: Number(res.headers["content-length"]),
          received,
          ended,
        });
      };
      res.on("data", (c: Buffer) => {
        received += c.length;
      });
      res.on("end", () =>
        finish(received === Number(res.headers["content-length"]) ? "end" : "error"),
      );
      res.on("error", () => finish("error"));
      res.on("aborted", () => finish("error"));
      res.on("close", () => finish("error"));
    });
    req.on("error", () => resolve({ status: 0, length: 0, received: 0, ended: "error" }));
    req.end();
  });
}

describe("faults", () => {
  it("dropAfterBytes: the first K CDN bodies are cut after N bytes, then normal", async () => {
    mock.set({ faults: { dropAfterBytes: { bytes: 100_000, count: 1 } } });
    const url = await cdnUrlFor(mock, PACK);
    const first = await rawGet(url);
    expect(first.status).toBe(200);
    expect(first.ended).toBe("error");
    expect(first.received).toBe(100_000);
    const second = await rawGet(url);
    expect(second.ended).toBe("end");
    expect(second.received).toBe(second.length);
  });

  it("shortBody: declares the full Content-Length, sends N bytes, closes", async () => {
    mock.set({ faults: { shortBody: { bytes: 1234, count: 1 } } });
    const r = await rawGet(await cdnUrlFor(mock, PACK));
    expect(r.length).toBe(1024 * 1024);
    expect(r.received).toBe(1234);
    expect(r.ended).toBe("error");
  });

  it("serverError: first K requests of an origin answer the status, then normal", async () => {
    mock.set({ faults: { serverError: { count: 2, status: 503 } } });
    const a = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expect(a.status).toBe(503);
    expect(errorOf(a).code).toBe("internal_error");
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey })).status).toBe(503);
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey })).status).toBe(200);
    mock.set({ faults: { serverError: { count: 1, origin: "cdn" } } });
    const url = await cdnUrlFor(mock, PACK);
    expect((await call(mock, url)).status).toBe(500);
    expect((await call(mock, url)).status).toBe(200);
  });

  it("rateLimited: 429 rate_limited with the given Retry-After", async () => {
    mock.set({ faults: { rateLimited: { count: 1, retryAfter: 7 } } });
    const r = await call(mock, "/api/v1/packs", { key: mock.apiKey });
    expect(r.status).toBe(429);
    expect(errorOf(r).code).toBe("rate_limited");
    expect(r.headers.get("retry-after")).toBe("7");
    expect(r.headers.get("ratelimit")).toBe('"read";r=0;t=7');
    expect((await call(mock, "/api/v1/packs", { key: mock.apiKey })).status).toBe(200);
  });

  it("throttleBytesPerSecond: paces the CDN body", async () => {
    mock.set({ faults: { throttleBytesPerSecond: 1_000_000 }, packSize: 300_000 });
    const url = await cdnUrlFor(mock, PACK);
    const t0 = Date.now();
    const r = await call(mock, url);
    const ms = Date.now() - t0;
    expect(r.body.length).toBe(300_000);
    expect(ms).toBeGreaterThanOrEqual(250);
    mock.set({ packSize: null });
  });

  it("throttleBytesPerSecond with 1-byte writes keeps its pace (waits under 1 ms add up)", async () => {
    mock.set({
      faults: { throttleBytesPerSecond: 300_000, chunkSizes: [1] },
      packSize: 30_000,
    });
    const url = await cdnUrlFor(mock, PACK);
    const t0 = Date.now();
    const r = await call(mock, url);
    const ms = Date.now() - t0;
    expect(r.body.length).toBe(30_000);
    expect(ms).toBeGreaterThanOrEqual(80);
    // one timer per byte would take 30 s at least
    expect(ms).toBeLessThan(15_000);
    mock.set({ packSize: null });
  });

  it("redirectLoop: the download route redirects to itself", async () => {
    mock.set({ faults: { redirectLoop: true } });
    const r = await call(mock, PACK, { key: mock.apiKey });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${mock.baseUrl}${PACK}`);
    await expect(
      fetch(`${mock.baseUrl}${PACK}`, { headers: { Authorization: `Bearer ${mock.apiKey}` } }),
    ).rejects.toThrow();
  });

  it("contentDisposition: a hostile raw header value", async () => {
    const hostile = 'attachment; filename="../../../etc/passwd"';
    mock.set({ faults: { contentDisposition: hostile } });
    const r = await call(mock, await cdnUrlFor(mock, PACK));
    expect(r.headers.get("content-disposition")).toBe(hostile);
  });

  it("htmlErrorPage: an HTML page instead of JSON for the first K API requests", async () => {
    mock.set({ faults: { htmlErrorPage: { count: 1 } } });
    const r = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expect(r.status).toBe(502);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.body.toString("utf8")).toContain("<html>");
    expect(r.headers.get("x-request-id")).not.toBeNull();
    expect((await call(mock, "/api/v1/me", { key: mock.apiKey })).status).toBe(200);
  });

  it("cdnExpired: the first K CDN requests answer 403 / 410 as for an expired URL", async () => {
    mock.set({ faults: { cdnExpired: { count: 1, status: 410 } } });
    const url = await cdnUrlFor(mock, PACK);
    const r = await call(mock, url);
    expect(r.status).toBe(410);
    expect(errorOf(r).code).toBe("url_expired");
    expect((await call(mock, url)).status).toBe(200);
  });

  it("paginationLoop: has_more forever with a repeated next_cursor", async () => {
    mock.set({ faults: { paginationLoop: true } });
    type P = { pagination: { has_more: boolean; next_cursor: string } };
    const a = (await call(mock, "/api/v1/packs?limit=2", { key: mock.apiKey })).json as P;
    const b = (
      await call(mock, `/api/v1/packs?limit=2&cursor=${a.pagination.next_cursor}`, {
        key: mock.apiKey,
      })
    ).json as P;
    expect(b.pagination.has_more).toBe(true);
    expect(b.pagination.next_cursor).toBe(a.pagination.next_cursor);
  });

  it("malformedJson: a truncated JSON body on the first K successes", async () => {
    mock.set({ faults: { malformedJson: { count: 1 } } });
    const r = await call(mock, "/api/v1/me", { key: mock.apiKey });
    expect(r.status).toBe(200);
    expect(() => JSON.parse(r.body.toString("utf8"))).toThrow();
  });

  it("changingEtag: every CDN response has a new ETag, bytes unchanged", async () => {
    mock.set({ faults: { changingEtag: true } });
    const url = await cdnUrlFor(mock, PACK);
    const a = await call(mock, url);
    const b = await call(mock, url, {
      headers: { Range: "bytes=5-", "If-Range": a.headers.get("etag") ?? "" },
    });
    expect(b.headers.get("etag")).not.toBe(a.headers.get("etag"));
    expect(b.status).toBe(200);
    expect(sha256(b.body)).toBe(sha256(a.body));
  });

  it("chunkSizes: each body write has the next size of the list, in turn; bytes unchanged", async () => {
    const file = Buffer.from(Array.from({ length: 40 }, (_, i) => i));
    const layout = makeLayout([
      { kind: "lit", buf: file.subarray(0, 9) },
      { kind: "lit", buf: file.subarray(9) },
    ]);
    const writes: Buffer[] = [];
    const res = {
      destroyed: false,
      writableEnded: false,
      write: (chunk: Buffer) => writes.push(Buffer.from(chunk)) > 0,
    } as unknown as ServerResponse;
    expect(await streamBytes(res, layout, 2, 37, () => undefined, [1, 7, 0])).toBe(true);
    expect(writes.map((w) => w.length)).toEqual([1, 7, 1, 1, 7, 1, 1, 7, 1, 1, 7, 1]);
    expect(Buffer.concat(writes)).toEqual(file.subarray(2, 38));
    // over the wire, the whole file still arrives intact
    mock.set({ faults: { chunkSizes: [1, 4093, 65_537] } });
    const info = await mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    expect(sha256((await call(mock, await cdnUrlFor(mock, PACK))).body)).toBe(info.sha256);
  });

  it("rangeNotSatisfiable: the first K ranged CDN requests answer 416 with the real size", async () => {
    mock.set({ faults: { rangeNotSatisfiable: { count: 1 } } });
    const url = await cdnUrlFor(mock, PACK);
    expect((await call(mock, url)).status).toBe(200); // no Range: not counted
    const r = await call(mock, url, { headers: { Range: "bytes=10-" } });
    expect(r.status).toBe(416);
    expect(errorOf(r).code).toBe("range_not_satisfiable");
    expect(r.headers.get("content-range")).toBe(`bytes */${1024 * 1024}`);
    expect((await call(mock, url, { headers: { Range: "bytes=10-" } })).status).toBe(206);
  });
});
