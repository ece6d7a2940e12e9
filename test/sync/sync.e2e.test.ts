import { existsSync, readdirSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { sha256Of, tempDir } from "../helpers/files.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";

/** `packs sync` core rules: fresh, idempotent, missing/truncated, dry run, editions, output. */

let mock: MockService;
let env: Record<string, string>;
/** Slugs the demo key owns, in list order. */
let owned: string[];

beforeAll(async () => {
  ({ mock, env, owned } = await startSyncMock(16 * 1024));
});
afterAll(async () => {
  await mock.close();
});

function downloadRequests(): RequestLogEntry[] {
  return mock.requests.filter(
    (e) => e.origin === "api" && /^\/api\/v1\/(packs|assets)\/[^/]+\/download(\?|$)/.test(e.url),
  );
}

async function syncJson(
  args: string[],
): Promise<{ code: number | null; doc: SyncDoc; stderr: string }> {
  const r = await runCli(["packs", "sync", ...args, "--json"], { env });
  return { code: r.code, doc: JSON.parse(r.stdout) as SyncDoc, stderr: r.stderr };
}

describe("svc-dl packs sync", () => {
  const dir = tempDir();

  it("fresh sync downloads every owned pack, one at a time, from the records' bundle URLs", async () => {
    expect(owned.length).toBeGreaterThanOrEqual(3);
    mock.clearLog();
    const { code, doc } = await syncJson([dir]);
    expect(code).toBe(0);
    expect(Object.keys(doc)).toEqual(["dir", "items", "summary", "complete"]);
    expect(doc.dir).toBe(dir);
    expect(doc.items.map((i) => i.slug)).toEqual(owned);
    expect(doc.summary).toEqual({
      downloaded: owned.length,
      up_to_date: 0,
      failed: 0,
      filtered: 0,
    });
    for (const item of doc.items) {
      expect(Object.keys(item)).toEqual([
        "slug",
        "edition",
        "status",
        "reason",
        "path",
        "bytes",
        "sha256",
        "error",
      ]);
      expect(item).toMatchObject({
        edition: "standard",
        status: "downloaded",
        reason: "new",
        error: null,
      });
      const info = await mock.fileInfo({ kind: "pack", slug: item.slug });
      expect(item.path).toBe(join(dir, info.filename));
      expect(item.bytes).toBe(info.size);
      expect(item.sha256).toBe(info.sha256);
      expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    }
    const urls = downloadRequests().map((e) => e.url);
    expect(urls).toEqual(owned.map((s) => `/api/v1/packs/${s}/download`));
    // one CDN transfer per pack: no retries, no duplicate downloads
    const cdn = mock.requests.filter((e) => e.origin === "cdn");
    expect(cdn).toHaveLength(owned.length);
  });

  it("a second run makes no download request and exits 0", async () => {
    mock.clearLog();
    const { code, doc } = await syncJson([dir]);
    expect(code).toBe(0);
    expect(downloadRequests()).toHaveLength(0);
    expect(mock.requests.filter((e) => e.origin === "cdn")).toHaveLength(0);
    expect(doc.summary).toEqual({
      downloaded: 0,
      up_to_date: owned.length,
      failed: 0,
      filtered: 0,
    });
    for (const item of doc.items) {
      expect(item.status).toBe("up-to-date");
      expect(item.reason).toBe("already complete");
      expect(item.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("fetches a missing and a truncated file again, and only those", async () => {
    const [gone, cut] = owned;
    if (gone === undefined || cut === undefined) throw new Error("fixture has too few packs");
    const goneInfo = await mock.fileInfo({ kind: "pack", slug: gone });
    const cutInfo = await mock.fileInfo({ kind: "pack", slug: cut });
    rmSync(join(dir, goneInfo.filename));
    truncateSync(join(dir, cutInfo.filename), 100);
    mock.clearLog();
    const { code, doc } = await syncJson([dir]);
    expect(code).toBe(0);
    expect(downloadRequests().map((e) => e.url)).toEqual([
      `/api/v1/packs/${gone}/download`,
      `/api/v1/packs/${cut}/download`,
    ]);
    const bySlug = new Map(doc.items.map((i) => [i.slug, i]));
    expect(bySlug.get(gone)).toMatchObject({ status: "downloaded", reason: "missing locally" });
    expect(bySlug.get(cut)).toMatchObject({ status: "repaired", reason: "size differs" });
    expect(sha256Of(join(dir, goneInfo.filename))).toBe(goneInfo.sha256);
    expect(sha256Of(join(dir, cutInfo.filename))).toBe(cutInfo.sha256);
    expect(doc.summary).toEqual({
      downloaded: 2,
      up_to_date: owned.length - 2,
      failed: 0,
      filtered: 0,
    });
  });

  it("prints plain lines without a TTY: 'pack N/M' per file, a summary, no escape sequences", async () => {
    const fresh = tempDir();
    const r = await runCli(["packs", "sync", fresh], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toContain("\u001b");
    expect(r.stderr).toContain(`pack 1/${owned.length}`);
    expect(r.stderr).toContain(`pack ${owned.length}/${owned.length}`);
    expect(r.stderr).toMatch(new RegExp(`${owned.length} downloaded, 0 up to date, 0 failed`));
  });

  it("defaults DIR to the current directory", async () => {
    const cwd = tempDir();
    const r = await runCli(["packs", "sync", "--quiet"], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const first = await mock.fileInfo({ kind: "pack", slug: owned[0] ?? "" });
    expect(existsSync(join(cwd, first.filename))).toBe(true);
  });
});

describe("svc-dl packs sync --dry-run", () => {
  it("lists what would be fetched and why, makes no download request and writes nothing", async () => {
    const dir = tempDir();
    mock.clearLog();
    const { code, doc } = await syncJson([dir, "--dry-run"]);
    expect(code).toBe(0);
    expect(downloadRequests()).toHaveLength(0);
    expect(readdirSync(dir)).toEqual([]);
    expect(doc.items.map((i) => [i.slug, i.status, i.reason])).toEqual(
      owned.map((s) => [s, "would-download", "new"]),
    );
    expect(doc.summary).toEqual({ downloaded: 0, up_to_date: 0, failed: 0, filtered: 0 });

    const human = await runCli(["packs", "sync", dir, "--dry-run"], { env });
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SLUG\s+EDITION\s+REASON$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(owned);
    expect(human.stderr).toContain("nothing was written");
  });

  it("gives 'missing locally' and 'size differs' for a synced directory that lost files", async () => {
    const dir = tempDir();
    expect((await syncJson([dir])).code).toBe(0);
    const [gone, cut] = owned;
    const goneInfo = await mock.fileInfo({ kind: "pack", slug: gone ?? "" });
    const cutInfo = await mock.fileInfo({ kind: "pack", slug: cut ?? "" });
    rmSync(join(dir, goneInfo.filename));
    truncateSync(join(dir, cutInfo.filename), 10);
    mock.clearLog();
    const { code, doc } = await syncJson([dir, "--dry-run"]);
    expect(code).toBe(0);
    expect(downloadRequests()).toHaveLength(0);
    const reasons = Object.fromEntries(doc.items.map((i) => [i.slug, [i.status, i.reason]]));
    expect(reasons[gone ?? ""]).toEqual(["would-download", "missing locally"]);
    expect(reasons[cut ?? ""]).toEqual(["would-download", "size differs"]);
    expect(doc.summary.up_to_date).toBe(owned.length - 2);
    // still truncated: a dry run changes nothing
    expect(readFileSync(join(dir, cutInfo.filename)).length).toBe(10);
  });
});

describe("svc-dl packs sync --edition", () => {
  it("all: adds the authoring editions; a pack without one is 'unavailable', not a failure", async () => {
    const dir = tempDir();
    mock.clearLog();
    const { code, doc } = await syncJson([dir, "--edition", "all"]);
    expect(code).toBe(0);
    expect(doc.items).toHaveLength(owned.length * 2);
    const authoring = doc.items.filter((i) => i.edition === "authoring");
    const withEdition = authoring.filter((i) => i.status === "downloaded");
    const without = authoring.filter((i) => i.status === "unavailable");
    expect(withEdition.length).toBeGreaterThan(0);
    expect(without.length).toBeGreaterThan(0);
    expect(withEdition.length + without.length).toBe(owned.length);
    for (const item of without) {
      expect(item.reason).toBe("no authoring edition");
      expect(item.error).toBeNull();
    }
    for (const item of withEdition) {
      const info = await mock.fileInfo({ kind: "pack", slug: item.slug, edition: "authoring" });
      expect(item.sha256).toBe(info.sha256);
      expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    }
    expect(doc.summary).toEqual({
      downloaded: owned.length + withEdition.length,
      up_to_date: 0,
      failed: 0,
      filtered: 0,
    });
    expect(downloadRequests().some((e) => e.url.endsWith("?edition=authoring"))).toBe(true);

    // The next run remembers which packs have no authoring edition: no download request at all.
    mock.clearLog();
    const again = await syncJson([dir, "--edition", "all"]);
    expect(again.code).toBe(0);
    expect(downloadRequests()).toHaveLength(0);
    const unavailable = again.doc.items
      .filter((i) => i.status === "unavailable")
      .map((i) => i.slug);
    expect(unavailable).toEqual(without.map((i) => i.slug));
    expect(again.doc.summary).toEqual({
      downloaded: 0,
      up_to_date: doc.summary.downloaded,
      failed: 0,
      filtered: 0,
    });

    // --refresh asks the service again, once per pack edition.
    mock.clearLog();
    const refreshed = await syncJson([dir, "--edition", "all", "--refresh"]);
    expect(refreshed.code).toBe(0);
    expect(downloadRequests()).toHaveLength(owned.length * 2);
    expect(refreshed.doc.items.filter((i) => i.status === "unavailable")).toHaveLength(
      without.length,
    );
  });

  it("authoring: only the authoring editions", async () => {
    const dir = tempDir();
    const { code, doc } = await syncJson([dir, "--edition", "authoring"]);
    expect(code).toBe(0);
    expect(doc.items.every((i) => i.edition === "authoring")).toBe(true);
    expect(doc.items.some((i) => i.status === "downloaded")).toBe(true);
  });

  it("refuses an unknown edition as a usage error", async () => {
    const r = await runCli(["packs", "sync", tempDir(), "--edition", "deluxe"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage_error");
  });
});
