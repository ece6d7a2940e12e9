/**
 * the fault matrix against the mock service over real HTTP. Every row runs the
 * built CLI (`--json`) against its own mock with one fault set, states its one accepted outcome
 * (exit 0 with a byte-identical file, or an exact exit code and error code), and afterwards
 * checks the promise: the final path never holds a partial or corrupt file, the state file
 * agrees with the bytes on disk, no secret in any output or file. Rows whose run fails with
 * partial data kept are re-run without the fault and must then resume to the identical file.
 * Headers the mock always sends (ETag, Content-Disposition, Content-Length) are left out with a
 * raw node:http server in the second table.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Faults, MockService } from "../../src/mock-server/index.js";
import { startMockService } from "../../src/mock-server/index.js";
import { partialPaths } from "../../src/outdir/partial.js";
import { registerSecret } from "../helpers/cli.js";
import {
  makeGlb,
  type RawServer,
  type ServeOptions,
  sendApiError,
  serveFile,
  startRawServer,
} from "../helpers/raw-server.js";
import {
  envFor,
  finalFiles,
  finalPathProblem,
  partFiles,
  run,
  servedBytes,
  sha256,
  sha256Of,
  tempDir,
} from "./helpers/harness.js";

const PACK_SIZE = 256 * 1024;
const ASSET_SIZE = 64 * 1024;
const PACK = "sci-fi-props";
const ASSET = "forest-pine-tree";

type Kind = "pack" | "asset";

/** What one row accepts: success (identical bytes), or exactly this exit code and error code. */
type Outcome =
  | { ok: true; status?: "downloaded" | "resumed" }
  | { ok: false; exit: number; code: string; keepsPartial?: boolean };

interface Ctx {
  mock: MockService;
  dir: string;
  kind: Kind;
  slug: string;
}

interface Row {
  name: string;
  kind: Kind;
  faults?: Faults;
  /** Extra CLI arguments (e.g. `--max-wait 1`), or a whole other command. */
  args?: string[];
  command?: string[];
  /** Prepares the directory or the mock before the run (seeded partial data, version bump). */
  setup?: (ctx: Ctx) => Promise<void>;
  outcome: Outcome;
  /** Extra checks on the mock's request log after the run. */
  check?: (ctx: Ctx) => void;
}

/** Download requests that reached the CDN origin with a body status. */
function cdnGets(mock: MockService) {
  return mock.requests.filter((q) => q.origin === "cdn");
}

/** API download-route requests. */
function apiDownloads(mock: MockService) {
  return mock.requests.filter((q) => q.origin === "api" && /\/download(\?|$)/.test(q.url));
}

/** Writes partial data of the item as an interrupted run would have left it. */
function seedPartial(ctx: Ctx, data: Buffer, meta: { etag: string; total: number }): void {
  mkdirSync(join(ctx.dir, ".svc-dl"), { recursive: true });
  const item = {
    kind: ctx.kind,
    slug: ctx.slug,
    edition: ctx.kind === "pack" ? ("standard" as const) : null,
  };
  const paths = partialPaths(ctx.dir, item);
  writeFileSync(paths.data, data);
  writeFileSync(
    paths.meta,
    JSON.stringify({ version: 1, ...item, ...meta, started_at: new Date().toISOString() }),
  );
}

const drop = (bytes: number, count: number): Faults => ({ dropAfterBytes: { bytes, count } });

const rows: Row[] = [
  // --- connection drops at many offsets -------------------------------------------------
  ...[0, 1, 1000, 64 * 1024 - 1, PACK_SIZE / 2, PACK_SIZE - 1, PACK_SIZE].map(
    (offset): Row => ({
      name: `connection dropped after ${offset} body bytes (once) → resumes, identical`,
      kind: "pack",
      faults: drop(offset, 1),
      outcome: { ok: true },
      check: ({ mock }) => {
        const cdn = cdnGets(mock);
        // a resume asks for exactly the bytes it lacks, with If-Range; never re-fetches them
        if (offset > 0 && offset < PACK_SIZE) {
          expect(cdn.at(-1)?.headers.range).toBe(`bytes=${offset}-`);
          expect(cdn.at(-1)?.headers["if-range"]).toBe(cdn[0]?.responseHeaders.etag);
          expect(cdn.at(-1)?.status).toBe(206);
        }
        expect(cdn.reduce((n, q) => n + q.bytesSent, 0)).toBe(PACK_SIZE);
      },
    }),
  ),
  {
    name: "connection dropped after 1000 bytes, twice in a row → resumes each time, identical",
    kind: "asset",
    faults: drop(1000, 2),
    outcome: { ok: true },
    check: ({ mock }) => {
      expect(cdnGets(mock).map((q) => q.headers.range)).toEqual([
        undefined,
        "bytes=1000-",
        "bytes=2000-",
      ]);
    },
  },
  {
    name: "drops that gain ≥ 64 KiB are forgiven: 3 drops every 64 KiB of a 256 KiB pack → identical",
    kind: "pack",
    faults: drop(64 * 1024, 3),
    outcome: { ok: true },
  },
  {
    name: "drops after 1000 bytes forever → exit 7 network_error after 5 tries, partial kept",
    kind: "asset",
    faults: drop(1000, 1000),
    outcome: { ok: false, exit: 7, code: "network_error", keepsPartial: true },
    check: ({ mock }) => expect(cdnGets(mock)).toHaveLength(5),
  },
  // --- 5xx bursts -------------------------------------------------------------------------
  {
    name: "one 500 from the API → retried, identical",
    kind: "asset",
    faults: { serverError: { count: 1, status: 500 } },
    outcome: { ok: true },
  },
  {
    name: "two 503 from the CDN → retried, identical",
    kind: "pack",
    faults: { serverError: { count: 2, origin: "cdn", status: 503 } },
    outcome: { ok: true },
  },
  {
    name: "a 502 from the CDN, then a drop mid-file → retried and resumed, identical",
    kind: "pack",
    faults: { serverError: { count: 1, origin: "cdn", status: 502 }, ...drop(100_000, 1) },
    outcome: { ok: true },
    check: ({ mock }) => expect(cdnGets(mock).map((q) => q.status)).toEqual([502, 200, 206]),
  },
  {
    name: "500 on every try → exit 7 internal_error after exactly 5 tries",
    kind: "asset",
    faults: { serverError: { count: 100, status: 500 } },
    outcome: { ok: false, exit: 7, code: "internal_error" },
    check: ({ mock }) => {
      expect(apiDownloads(mock)).toHaveLength(5);
      expect(cdnGets(mock)).toHaveLength(0);
    },
  },
  // --- 429 storms ---------------------------------------------------------------------------
  {
    name: "two 429 (Retry-After 1) within --max-wait → waits, identical",
    kind: "asset",
    faults: { rateLimited: { count: 2, retryAfter: 1 } },
    outcome: { ok: true },
    check: ({ mock }) => expect(apiDownloads(mock).map((q) => q.status)).toEqual([429, 429, 302]),
  },
  {
    name: "429 storm beyond --max-wait 1 → exit 6 rate_limited after one wait, no file",
    kind: "asset",
    faults: { rateLimited: { count: 100, retryAfter: 1 } },
    args: ["--max-wait", "1"],
    outcome: { ok: false, exit: 6, code: "rate_limited" },
    check: ({ mock }) => expect(apiDownloads(mock)).toHaveLength(2),
  },
  // --- slow and short bodies --------------------------------------------------------------
  {
    name: "throttled trickle (128 KiB/s) → identical",
    kind: "asset",
    faults: { throttleBytesPerSecond: 128 * 1024 },
    outcome: { ok: true },
  },
  {
    name: "body shorter than Content-Length once (clean end after 50 000 bytes) → resumed, identical",
    kind: "pack",
    faults: { shortBody: { count: 1, bytes: 50_000 } },
    outcome: { ok: true },
    check: ({ mock }) => expect(cdnGets(mock).at(-1)?.headers.range).toBe("bytes=50000-"),
  },
  {
    name: "body shorter than Content-Length on every try → exit 7 network_error, partial kept",
    kind: "asset",
    faults: { shortBody: { count: 1000, bytes: 1000 } },
    outcome: { ok: false, exit: 7, code: "network_error", keepsPartial: true },
  },
  // --- changing files -----------------------------------------------------------------------
  {
    name: "ETag changes between attempts (drop, then If-Range no longer matches) → starts over, never spliced",
    kind: "pack",
    faults: { changingEtag: true, ...drop(100_000, 1) },
    outcome: { ok: true, status: "downloaded" },
    check: ({ mock }) => {
      const cdn = cdnGets(mock);
      expect(cdn).toHaveLength(2);
      expect(cdn[1]?.headers["if-range"]).toBe(cdn[0]?.responseHeaders.etag);
      expect(cdn[1]?.status).toBe(200);
      expect(cdn[1]?.bytesSent).toBe(PACK_SIZE);
    },
  },
  {
    name: "partial data of an older version (pack bumped since) → If-Range fails, starts over, identical to the new version",
    kind: "pack",
    setup: async (ctx) => {
      const old = await servedBytes(ctx.mock, ctx);
      const info = await ctx.mock.fileInfo({ kind: "pack", slug: ctx.slug });
      seedPartial(ctx, old.subarray(0, 100_000), { etag: info.etag, total: info.size });
      ctx.mock.bumpPackVersion(ctx.slug);
    },
    outcome: { ok: true, status: "downloaded" },
    check: ({ mock }) => expect(cdnGets(mock).map((q) => q.status)).toEqual([200]),
  },
  // --- redirects ----------------------------------------------------------------------------
  {
    name: "redirect loop → exit 7 too_many_redirects",
    kind: "asset",
    faults: { redirectLoop: true },
    outcome: { ok: false, exit: 7, code: "too_many_redirects" },
    check: ({ mock }) => expect(apiDownloads(mock)).toHaveLength(11),
  },
  {
    name: "expired signed CDN URL twice (403) → fresh URL from the API, identical",
    kind: "pack",
    faults: { cdnExpired: { count: 2, status: 403 } },
    outcome: { ok: true },
  },
  // --- 416 edge cases -----------------------------------------------------------------------
  {
    name: "416: partial == size → finished from the partial, no body bytes downloaded",
    kind: "pack",
    setup: async (ctx) => {
      const bytes = await servedBytes(ctx.mock, ctx);
      const info = await ctx.mock.fileInfo({ kind: "pack", slug: ctx.slug });
      seedPartial(ctx, bytes, { etag: info.etag, total: info.size });
      ctx.mock.clearLog();
    },
    outcome: { ok: true, status: "resumed" },
    check: ({ mock }) => {
      expect(cdnGets(mock).map((q) => q.status)).toEqual([416]);
      expect(cdnGets(mock)[0]?.headers.range).toBe(`bytes=${PACK_SIZE}-`);
    },
  },
  {
    name: "416: partial > size (metadata claims a larger file) → starts over, identical",
    kind: "pack",
    setup: async (ctx) => {
      const bytes = await servedBytes(ctx.mock, ctx);
      const info = await ctx.mock.fileInfo({ kind: "pack", slug: ctx.slug });
      const longer = Buffer.concat([bytes, Buffer.alloc(100, 7)]);
      seedPartial(ctx, longer, { etag: info.etag, total: longer.length });
      ctx.mock.clearLog();
    },
    outcome: { ok: true, status: "downloaded" },
    check: ({ mock }) => expect(cdnGets(mock).map((q) => q.status)).toEqual([416, 200]),
  },
  {
    name: "partial larger than its own recorded total → discarded locally, no Range sent, identical",
    kind: "pack",
    setup: async (ctx) => {
      const info = await ctx.mock.fileInfo({ kind: "pack", slug: ctx.slug });
      seedPartial(ctx, Buffer.alloc(info.size + 10, 1), { etag: info.etag, total: info.size });
    },
    outcome: { ok: true, status: "downloaded" },
    check: ({ mock }) => expect(cdnGets(mock)[0]?.headers.range).toBeUndefined(),
  },
  {
    name: "416 with a full-size partial of garbage → corrupt_download, garbage discarded, fetched again from zero, identical",
    kind: "pack",
    setup: async (ctx) => {
      const info = await ctx.mock.fileInfo({ kind: "pack", slug: ctx.slug });
      seedPartial(ctx, Buffer.alloc(info.size, 0x41), { etag: info.etag, total: info.size });
    },
    outcome: { ok: true },
    check: ({ dir }) => expect(partFiles(dir)).toEqual([]),
  },
  // --- responses that break the spec --------------------------------------------------------
  {
    name: "HTML 502 page from the API once → retried, identical",
    kind: "asset",
    faults: { htmlErrorPage: { count: 1, status: 502 } },
    outcome: { ok: true },
  },
  {
    name: "HTML page with status 200 served as the file → exit 7 corrupt_download, nothing kept",
    kind: "asset",
    faults: { htmlErrorPage: { count: 2, status: 200 } }, // the second is the fetch from zero
    outcome: { ok: false, exit: 7, code: "corrupt_download" },
    check: ({ dir }) => expect(partFiles(dir)).toEqual([]),
  },
  {
    name: "HTML 404 page instead of the spec's error object → exit 7 unexpected_response",
    kind: "asset",
    faults: { htmlErrorPage: { count: 1, status: 404 } },
    outcome: { ok: false, exit: 7, code: "unexpected_response" },
  },
  {
    name: "malformed JSON in the pack listing → exit 7 unexpected_response, no download",
    kind: "pack",
    faults: { malformedJson: { count: 1 } },
    outcome: { ok: false, exit: 7, code: "unexpected_response" },
    check: ({ mock }) => expect(apiDownloads(mock)).toHaveLength(0),
  },
  // --- pagination that never ends -----------------------------------------------------------
  {
    name: "pagination that never ends: pack get → exit 7, stops",
    kind: "pack",
    faults: { paginationLoop: true },
    outcome: { ok: false, exit: 7, code: "broken_pagination" },
    check: ({ mock }) => {
      expect(mock.requests.length).toBeLessThan(5);
      expect(apiDownloads(mock)).toHaveLength(0);
    },
  },
  {
    name: "pagination that never ends: packs sync → exit 7, stops, downloads nothing",
    kind: "pack",
    faults: { paginationLoop: true },
    command: ["packs", "sync", ".", "--json"],
    outcome: { ok: false, exit: 7, code: "broken_pagination" },
    check: ({ mock }) => {
      expect(mock.requests.length).toBeLessThan(5);
      expect(apiDownloads(mock)).toHaveLength(0);
    },
  },
];

describe("fault matrix (mock service)", () => {
  it.concurrent.for(rows)("$name", async (row, { expect }) => {
    const mock = await startMockService({
      packSize: PACK_SIZE,
      assetSize: ASSET_SIZE,
      // generous quotas: rows measure faults, not pacing
      limits: {
        download: { quota: 1000, windowSeconds: 60 },
        read: { quota: 1000, windowSeconds: 60 },
      },
    });
    try {
      const slug = row.kind === "pack" ? PACK : ASSET;
      const ctx: Ctx = { mock, dir: tempDir(), kind: row.kind, slug };
      const before = await mock.fileInfo({ kind: row.kind, slug });
      await row.setup?.(ctx);
      const info = await mock.fileInfo({ kind: row.kind, slug });
      const good = [info.sha256];
      mock.set({ faults: row.faults ?? {} });
      mock.clearLog();
      const env = envFor(mock);
      const args = row.command ?? [row.kind, "get", slug, "--json", ...(row.args ?? [])];
      const r = await run(args, { env, cwd: ctx.dir });
      const o = row.outcome;
      if (o.ok) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.doc?.sha256).toBe(info.sha256);
        expect(r.doc?.bytes).toBe(info.size);
        if (o.status) expect(r.doc?.status).toBe(o.status);
        expect(sha256Of(join(ctx.dir, info.filename))).toBe(info.sha256);
        expect(finalFiles(ctx.dir)).toEqual([info.filename]);
        expect(partFiles(ctx.dir)).toEqual([]);
      } else {
        expect(r.code, r.stderr).toBe(o.exit);
        expect(r.error?.code, r.stderr).toBe(o.code);
        expect(r.stdout).toBe("");
        expect(finalFiles(ctx.dir)).toEqual([]);
        if (o.keepsPartial) expect(partFiles(ctx.dir)[0]?.bytes ?? 0).toBeGreaterThan(0);
      }
      // the promise, after every row: nothing partial or corrupt at a final path
      expect(finalPathProblem(ctx.dir, good)).toBeUndefined();
      row.check?.(ctx);
      expect(before.size).toBe(info.size);

      if (!o.ok && row.command === undefined) {
        // without the fault the same command completes, resuming any partial data kept
        const kept = partFiles(ctx.dir)[0]?.bytes ?? 0;
        mock.set({ faults: {} });
        const again = await run([row.kind, "get", slug, "--json"], { env, cwd: ctx.dir });
        expect(again.code, again.stderr).toBe(0);
        expect(sha256Of(join(ctx.dir, info.filename))).toBe(info.sha256);
        if (o.keepsPartial) {
          expect(again.doc?.status).toBe("resumed");
          expect(again.doc?.resumed_from).toBe(kept);
        }
        expect(finalPathProblem(ctx.dir, good)).toBeUndefined();
      }
    } finally {
      await mock.close();
    }
  });
});

// --- headers the mock always sends, left out by a raw server -----------------------------------

const RAW_KEY = "svc_live_R3l1abilityRawServerKey0123456789_0badc0de";
const FILE = makeGlb(96 * 1024, 42);
const FILE_SHA = sha256(FILE);
const RAW_SLUG = "raw-asset";

interface RawRow {
  name: string;
  /** How the n-th request of the download route is answered. */
  serve: (hit: number) => ServeOptions | "416" | "304" | "empty" | "wrong-range";
  outcome: { ok: true; file: string } | { ok: false; exit: number; code: string };
  /** `via`: the route (a CDN origin's download is read by the body fast path). */
  check?: (server: RawServer, via: (typeof VIA)[number]) => void;
}

const rawRows: RawRow[] = [
  {
    name: "no ETag, drop after 20 000 bytes → cannot resume safely: starts over, identical",
    serve: (hit) => ({ etag: null, ...(hit === 1 ? { dropAfter: 20_000 } : {}) }),
    outcome: { ok: true, file: "model.glb" },
    check: (s) => {
      expect(s.requests).toHaveLength(2);
      expect(s.requests[1]?.headers.range).toBeUndefined();
      expect(s.requests[1]?.headers["if-range"]).toBeUndefined();
    },
  },
  {
    name: "weak ETag, drop → no If-Range with a weak validator: starts over, identical",
    serve: (hit) => ({ etag: 'W/"weak-1"', ...(hit === 1 ? { dropAfter: 20_000 } : {}) }),
    outcome: { ok: true, file: "model.glb" },
    check: (s) => {
      expect(s.requests[1]?.headers.range).toBeUndefined();
      expect(s.requests[1]?.headers["if-range"]).toBeUndefined();
    },
  },
  {
    name: "strong ETag, drop → resumes with Range + If-Range, identical",
    serve: (hit) => (hit === 1 ? { dropAfter: 20_000 } : {}),
    outcome: { ok: true, file: "model.glb" },
    check: (s) => {
      expect(s.requests[1]?.headers.range).toBe("bytes=20000-");
      expect(s.requests[1]?.headers["if-range"]).toBe(`"f-${FILE.length}"`);
    },
  },
  {
    name: "no ETag, drop after 70 000 bytes every time → exit 7 after 5 tries (progress not kept is not forgiven)",
    serve: () => ({ etag: null, dropAfter: 70_000 }),
    outcome: { ok: false, exit: 7, code: "network_error" },
    check: (s) => expect(s.requests).toHaveLength(5),
  },
  {
    name: "weak ETag, body ends short (70 000 of 96 KiB) every time → exit 7 after 5 tries",
    serve: () => ({ etag: 'W/"weak-2"', endAfter: 70_000 }),
    outcome: { ok: false, exit: 7, code: "network_error" },
    check: (s) => expect(s.requests).toHaveLength(5),
  },
  {
    name: "no Content-Length, drop after 70 000 bytes every time → resumed with Range each time, identical",
    serve: () => ({ contentLength: false, dropAfter: 70_000 }),
    outcome: { ok: true, file: "model.glb" },
    // from a CDN the first answer (chunked) is refused by the body fast path and undici
    // repeats the request, then carries the run's later requests to that origin (docs/design.md)
    check: (s, via) =>
      expect(s.requests.map((q) => q.headers.range)).toEqual([
        ...(via === "cdn" ? [undefined] : []),
        undefined,
        "bytes=70000-",
      ]),
  },
  {
    name: "no Content-Disposition → the contract's fallback name <slug>.glb",
    serve: () => ({ contentDisposition: null }),
    outcome: { ok: true, file: `${RAW_SLUG}.glb` },
  },
  {
    name: "no Content-Length (chunked body) → identical",
    serve: () => ({ contentLength: false }),
    outcome: { ok: true, file: "model.glb" },
  },
  {
    name: "no Content-Length, drop → resumed like any other (the 206 total fixes the size), identical",
    serve: (hit) => ({ contentLength: false, ...(hit === 1 ? { dropAfter: 20_000 } : {}) }),
    outcome: { ok: true, file: "model.glb" },
    // from a CDN the first answer (chunked, then dropped) is refused by the body fast path at
    // its head, and undici's repeat of it gets the whole body: nothing left to resume
    check: (s, via) =>
      via === "cdn"
        ? expect(s.requests.map((q) => q.headers.range)).toEqual([undefined, undefined])
        : expect(s.requests[1]?.headers.range).toBe("bytes=20000-"),
  },
  {
    name: "no Content-Length, body ends cleanly after 1000 bytes → exit 7 corrupt_download",
    serve: () => ({ contentLength: false, endAfter: 1000 }),
    outcome: { ok: false, exit: 7, code: "corrupt_download" },
  },
  {
    name: "server ignores Range (200 every time), drop → starts over, identical",
    serve: (hit) => ({ ranges: false, ...(hit === 1 ? { dropAfter: 30_000 } : {}) }),
    outcome: { ok: true, file: "model.glb" },
  },
  {
    name: "206 whose Content-Range starts elsewhere → starts over, identical",
    serve: (hit) => (hit === 1 ? { dropAfter: 20_000 } : hit === 2 ? "wrong-range" : {}),
    outcome: { ok: true, file: "model.glb" },
    check: (s) =>
      expect(s.requests.map((q) => q.headers.range)).toEqual([
        undefined,
        "bytes=20000-",
        undefined,
      ]),
  },
  {
    name: "416 to a request without Range → exit 7 range_not_satisfiable",
    serve: () => "416",
    outcome: { ok: false, exit: 7, code: "range_not_satisfiable" },
  },
  {
    name: "304 to an unconditional request → exit 7 unexpected_response",
    serve: () => "304",
    outcome: { ok: false, exit: 7, code: "unexpected_response" },
  },
  {
    name: "200 with an empty body → exit 7 corrupt_download",
    serve: () => "empty",
    outcome: { ok: false, exit: 7, code: "corrupt_download" },
  },
];

/** The raw rows run twice: served by the API origin itself (undici), and by a second origin
 * the API redirects to, as a CDN would (the download engine's own transport). */
const VIA = ["api", "cdn"] as const;
const rawCases = rawRows.flatMap((row) =>
  VIA.map((via) => ({ ...row, via, title: `${row.name} [${via}]` })),
);

describe("fault matrix (headers the mock cannot leave out: raw server)", () => {
  registerSecret(RAW_KEY);
  const servers: RawServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it.concurrent.for(rawCases)("$title", async (row, { expect }) => {
    const fileServer = await startRawServer((req, res, { hit }) => {
      const how = row.serve(hit);
      if (how === "416") {
        sendApiError(res, 416, "range_not_satisfiable");
      } else if (how === "304") {
        res.writeHead(304, { etag: '"x"' }).end();
      } else if (how === "empty") {
        res.writeHead(200, { "content-length": "0", etag: '"e"' }).end();
      } else if (how === "wrong-range") {
        res.writeHead(206, {
          "content-range": `bytes 0-${FILE.length - 1}/${FILE.length}`,
          "content-length": String(FILE.length),
          etag: `"f-${FILE.length}"`,
        });
        res.end(FILE);
      } else {
        serveFile(req, res, FILE, "model.glb", how);
      }
    });
    servers.push(fileServer);
    let api = fileServer;
    if (row.via === "cdn") {
      api = await startRawServer((req, res) => {
        if (req.url !== `/api/v1/assets/${RAW_SLUG}/download`) {
          sendApiError(res, 404, "not_found");
          return;
        }
        res.writeHead(302, { location: `${fileServer.url}/files/${RAW_SLUG}?sig=abc` }).end();
      });
      servers.push(api);
    }
    const dir = tempDir();
    const r = await run(["asset", "get", RAW_SLUG, "--json"], {
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: RAW_KEY },
      cwd: dir,
    });
    if (row.outcome.ok) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.doc?.sha256).toBe(FILE_SHA);
      expect(finalFiles(dir)).toEqual([row.outcome.file]);
      expect(sha256Of(join(dir, row.outcome.file))).toBe(FILE_SHA);
    } else {
      expect(r.code, r.stderr).toBe(row.outcome.exit);
      expect(r.error?.code, r.stderr).toBe(row.outcome.code);
      expect(finalFiles(dir)).toEqual([]);
    }
    expect(finalPathProblem(dir, [FILE_SHA])).toBeUndefined();
    row.check?.(fileServer, row.via);
    if (row.via === "cdn") {
      // the CDN origin never saw the API key
      expect(JSON.stringify(fileServer.requests)).not.toContain(RAW_KEY);
    }
  });
});

describe("fault matrix (pagination that never ends: raw server)", () => {
  registerSecret(RAW_KEY);

  function pack(n: number) {
    return {
      slug: `p-${n}`,
      name: `Pack ${n}`,
      description: "",
      asset_count: 1,
      categories: [],
      purchased_at: "2024-01-01T00:00:00.000Z",
      order_id: "ord_1",
      downloads: { bundle: `http://127.0.0.1:9/p-${n}.zip` },
    };
  }

  const cases = [
    {
      name: "a fresh cursor on every page, has_more forever, total 3 → exit 7 broken_pagination",
      page: (n: number) => ({ total: 3, next: `c${n}` }),
      maxRequests: 4,
    },
    {
      name: "total growing with every page → bounded by the first page's total (exit 7)",
      page: (n: number) => ({ total: 5 * n, next: `c${n}` }),
      maxRequests: 7,
    },
    {
      name: "the same cursor again two pages later → exit 7 broken_pagination",
      page: (n: number) => ({ total: 100, next: `c${n % 2}` }),
      maxRequests: 3,
    },
  ];

  it.concurrent.for(cases)("$name", async (c, { expect }) => {
    const s = await startRawServer((_req, res, { hit }) => {
      const { total, next } = c.page(hit);
      const body = JSON.stringify({
        data: [pack(hit)],
        pagination: { limit: 1, offset: hit - 1, total, has_more: true, next_cursor: next },
      });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    try {
      const dir = tempDir();
      const r = await run(["packs", "list", "--json"], {
        env: { SVC_BASE_URL: s.url, SVC_API_KEY: RAW_KEY },
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(7);
      expect(r.error?.code).toBe("broken_pagination");
      expect(r.stdout).toBe("");
      expect(s.requests.length).toBeLessThanOrEqual(c.maxRequests);
    } finally {
      await s.close();
    }
  });
});
