import { mkdtempSync, readFileSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { sha256Of } from "../helpers/files.js";

/** `packs sync --refresh`: one conditional request per pack; changed packs replaced whole. */

interface SyncDoc {
  items: { slug: string; status: string; reason: string | null; sha256: string | null }[];
  summary: { downloaded: number; up_to_date: number; failed: number };
}

const PACK_SIZE = 64 * 1024;
let mock: MockService;
let env: Record<string, string>;
let owned: string[];
const dir = mkdtempSync(join(tmpdir(), "svc-dl-sync-refresh-"));

beforeAll(async () => {
  mock = await startMockService({
    quiet: true,
    packSize: PACK_SIZE,
    limits: { download: { quota: 1000, windowSeconds: 60 } },
  });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
  const r = await runCli(["packs", "sync", dir, "--json"], { env });
  expect(r.code).toBe(0);
  owned = (JSON.parse(r.stdout) as SyncDoc).items.map((i) => i.slug);
});
afterAll(async () => {
  await mock.close();
});

function downloadRequests(): RequestLogEntry[] {
  return mock.requests.filter((e) => e.origin === "api" && /\/download(\?|$)/.test(e.url));
}

function cdnRequests(): RequestLogEntry[] {
  return mock.requests.filter((e) => e.origin === "cdn");
}

async function syncJson(args: string[]): Promise<{ code: number | null; doc: SyncDoc }> {
  const r = await runCli(["packs", "sync", dir, ...args, "--json"], { env });
  return { code: r.code, doc: JSON.parse(r.stdout) as SyncDoc };
}

describe("svc-dl packs sync --refresh", () => {
  it("with If-None-Match honoured: 304 means up to date; a bumped pack is downloaded afresh", async () => {
    const slug = owned[0] ?? "";
    const before = await mock.fileInfo({ kind: "pack", slug });
    mock.bumpPackVersion(slug);
    const after = await mock.fileInfo({ kind: "pack", slug });
    expect(after.etag).not.toBe(before.etag);
    mock.clearLog();

    const { code, doc } = await syncJson(["--refresh"]);
    expect(code).toBe(0);
    expect(downloadRequests()).toHaveLength(owned.length);
    for (const e of downloadRequests()) expect(e.headers["if-none-match"]).toMatch(/^"[^"]+"$/);
    const cdn = cdnRequests();
    expect(cdn.filter((e) => e.status === 304)).toHaveLength(owned.length - 1);
    expect(cdn.filter((e) => e.status === 200)).toHaveLength(1);
    for (const item of doc.items) {
      if (item.slug === slug) {
        expect(item).toMatchObject({
          status: "downloaded",
          reason: "changed upstream",
          sha256: after.sha256,
        });
      } else {
        expect(item).toMatchObject({ status: "up-to-date", reason: "unchanged upstream" });
      }
    }
    expect(sha256Of(join(dir, after.filename))).toBe(after.sha256);
    expect(doc.summary).toEqual({
      downloaded: 1,
      up_to_date: owned.length - 1,
      failed: 0,
      filtered: 0,
    });
  });

  it("without If-None-Match support: a 200 with the same ETag is up to date and its body is not read", async () => {
    const slug = owned[1] ?? "";
    const old = await mock.fileInfo({ kind: "pack", slug });
    mock.bumpPackVersion(slug);
    const fresh = await mock.fileInfo({ kind: "pack", slug });
    // Throttled bodies: reading one whole would take a second; an abandoned one sends a few KiB.
    mock.set({ ifNoneMatch: false, faults: { throttleBytesPerSecond: PACK_SIZE } });
    mock.clearLog();
    try {
      const run = runCli(["packs", "sync", dir, "--refresh", "--json"], { env });
      // The old file is replaced only once the new one is complete: it is always one or the other.
      // Looked at on every change in the directory (a write in place, a rename over it).
      const seen = new Set<string>();
      const look = (): void => {
        try {
          seen.add(sha256Of(join(dir, old.filename)));
        } catch (e) {
          seen.add(`unreadable: ${(e as NodeJS.ErrnoException).code}`);
        }
      };
      const watcher = watch(dir, look);
      look();
      const r = await run.finally(() => watcher.close());
      look();
      expect(r.code).toBe(0);
      for (const sha of seen) expect([old.sha256, fresh.sha256]).toContain(sha);
      const doc = JSON.parse(r.stdout) as SyncDoc;
      await mock.settled();
      const cdn = cdnRequests();
      expect(cdn.every((e) => e.status === 200)).toBe(true);
      expect(cdn).toHaveLength(owned.length);
      const full = cdn.filter((e) => e.bytesSent === PACK_SIZE);
      expect(full).toHaveLength(1);
      for (const e of cdn)
        if (e.bytesSent !== PACK_SIZE) expect(e.bytesSent).toBeLessThan(PACK_SIZE / 2);
      const changed = doc.items.find((i) => i.slug === slug);
      expect(changed).toMatchObject({
        status: "downloaded",
        reason: "changed upstream",
        sha256: fresh.sha256,
      });
      expect(doc.items.filter((i) => i.status === "up-to-date")).toHaveLength(owned.length - 1);
      expect(sha256Of(join(dir, fresh.filename))).toBe(fresh.sha256);
    } finally {
      mock.set({ ifNoneMatch: true, faults: {} });
    }
  });

  it("--dry-run --refresh reports 'changed upstream' from the conditional requests and changes nothing", async () => {
    const slug = owned[2] ?? "";
    const old = await mock.fileInfo({ kind: "pack", slug });
    const stateBefore = readFileSync(join(dir, ".svc-dl", "state.json"), "utf8");
    mock.bumpPackVersion(slug);
    mock.clearLog();
    const { code, doc } = await syncJson(["--refresh", "--dry-run"]);
    expect(code).toBe(0);
    const changed = doc.items.find((i) => i.slug === slug);
    expect(changed).toMatchObject({ status: "would-download", reason: "changed upstream" });
    expect(doc.items.filter((i) => i.reason === "unchanged upstream")).toHaveLength(
      owned.length - 1,
    );
    expect(doc.summary.downloaded).toBe(0);
    // conditional requests only: one per pack (304 for the unchanged ones), nothing saved
    expect(downloadRequests()).toHaveLength(owned.length);
    await mock.settled();
    expect(cdnRequests().filter((e) => e.status === 304)).toHaveLength(owned.length - 1);
    expect(sha256Of(join(dir, old.filename))).toBe(old.sha256);
    expect(readFileSync(join(dir, ".svc-dl", "state.json"), "utf8")).toBe(stateBefore);

    const plainDry = await runCli(["packs", "sync", dir, "--dry-run"], { env });
    expect(plainDry.code).toBe(0);
    expect(plainDry.stdout).toBe("");
    expect(plainDry.stderr).toContain("0 would be downloaded");
  });
});
