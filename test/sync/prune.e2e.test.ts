import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { startFrontServer } from "../helpers/front-server.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";

/** `packs sync --prune [--max-delete N]` (cli-contract "Operating unattended"). */

let mock: MockService;
let env: Record<string, string>;
beforeAll(async () => {
  ({ mock, env } = await startSyncMock(16 * 1024));
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
});

type PruneDoc = SyncDoc & { summary: Record<string, number> };

interface StateJson {
  version: 1;
  items: Record<string, Record<string, unknown>>;
}

/**
 * A synced DIR plus `gone` pack files svc-dl recorded for packs the account no longer owns
 * (copies of a real file, recorded as `gone-N.zip` of slug `gone-N`).
 */
async function syncedWithGone(gone: number): Promise<{ dir: string; names: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-dl-prune-"));
  const r = await runCli(["packs", "sync", dir], { env });
  expect(r.code).toBe(0);
  const statePath = join(dir, ".svc-dl", "state.json");
  const state = JSON.parse(readFileSync(statePath, "utf8")) as StateJson;
  const [name, rec] = Object.entries(state.items)[0] ?? [];
  if (!name || !rec) throw new Error("no record");
  const names: string[] = [];
  for (let n = 1; n <= gone; n++) {
    const file = `gone-${n}.zip`;
    copyFileSync(join(dir, name), join(dir, file));
    state.items[file] = { ...rec, slug: `gone-${n}`, file, mtime_ms: undefined };
    names.push(file);
  }
  writeFileSync(statePath, JSON.stringify(state));
  return { dir, names };
}

describe("packs sync --prune", () => {
  it("without --prune lists such files as not-owned and moves nothing", async () => {
    const { dir, names } = await syncedWithGone(1);
    const r = await runCli(["packs", "sync", dir, "--json"], { env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as PruneDoc;
    expect(doc.items.filter((i) => i.status === "not-owned").map((i) => i.slug)).toEqual([
      "gone-1",
    ]);
    expect(doc.summary.not_owned).toBe(1);
    expect(existsSync(join(dir, names[0] ?? ""))).toBe(true);
  });

  it("--dry-run shows would-prune and moves nothing", async () => {
    const { dir, names } = await syncedWithGone(1);
    const r = await runCli(["packs", "sync", dir, "--prune", "--dry-run", "--json"], { env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as PruneDoc;
    expect(doc.items.find((i) => i.slug === "gone-1")?.status).toBe("would-prune");
    expect(existsSync(join(dir, names[0] ?? ""))).toBe(true);
  });

  it("moves recorded files of packs no longer owned to .svc-dl/trash/<UTC date>/, keeping their names", async () => {
    const { dir, names } = await syncedWithGone(2);
    const before = readFileSync(join(dir, names[0] ?? ""));
    const r = await runCli(["packs", "sync", dir, "--prune", "--json"], { env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as PruneDoc;
    expect(doc.summary.pruned).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    for (const name of names) {
      expect(existsSync(join(dir, name))).toBe(false);
      expect(existsSync(join(dir, ".svc-dl", "trash", today, name))).toBe(true);
    }
    expect(readFileSync(join(dir, ".svc-dl", "trash", today, names[0] ?? "")).equals(before)).toBe(
      true,
    );
    // the owned packs are untouched, and the records are gone: the next run lists nothing
    expect(doc.items.filter((i) => i.status === "up-to-date").length).toBeGreaterThan(0);
    const again = JSON.parse(
      (await runCli(["packs", "sync", dir, "--json"], { env })).stdout,
    ) as PruneDoc;
    expect(again.summary.not_owned).toBeUndefined();
  });

  it("keeps a file whose bytes differ from the record (kept-modified) and a file svc-dl never recorded", async () => {
    const { dir, names } = await syncedWithGone(1);
    const path = join(dir, names[0] ?? "");
    const bytes = readFileSync(path);
    bytes[0] = (bytes[0] ?? 0) ^ 0xff; // same size, other bytes
    writeFileSync(path, bytes);
    writeFileSync(join(dir, "mine.zip"), "the user's own file");
    const r = await runCli(["packs", "sync", dir, "--prune", "--json"], { env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as PruneDoc;
    expect(doc.items.find((i) => i.slug === "gone-1")?.status).toBe("kept-modified");
    expect(existsSync(path)).toBe(true);
    expect(existsSync(join(dir, "mine.zip"))).toBe(true);
    expect(existsSync(join(dir, ".svc-dl", "trash"))).toBe(false);
  });

  it("more than --max-delete would move: nothing moves, exit 1 prune_limit naming the count", async () => {
    const { dir, names } = await syncedWithGone(3);
    const r = await runCli(["packs", "sync", dir, "--prune", "--max-delete", "2"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/prune_limit/);
    expect(r.stderr).toMatch(/3 files/);
    expect(r.stderr).toMatch(/--max-delete 2/);
    for (const name of names) expect(existsSync(join(dir, name))).toBe(true);
  });

  it("after a listing that fails part-way (page 2 never ends), nothing moves", async () => {
    const { dir, names } = await syncedWithGone(1);
    mock.set({ faults: { paginationLoop: true } });
    const r = await runCli(["packs", "sync", dir, "--prune"], { env });
    expect(r.code).not.toBe(0);
    expect(existsSync(join(dir, names[0] ?? ""))).toBe(true);
    expect(existsSync(join(dir, ".svc-dl", "trash"))).toBe(false);
  });

  it("a symlinked .svc-dl/trash is refused: exit 8, nothing moves, nothing lands where it points", async () => {
    const { dir, names } = await syncedWithGone(2);
    const elsewhere = mkdtempSync(join(tmpdir(), "svc-dl-elsewhere-"));
    symlinkSync(elsewhere, join(dir, ".svc-dl", "trash"));
    const r = await runCli(["packs", "sync", dir, "--prune"], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(
      /refusing to prune: .*trash is a symbolic link.*nothing was moved \(2 files would have been\)/,
    );
    expect(r.stderr).toContain("code unsafe_state_dir");
    for (const name of names) expect(existsSync(join(dir, name))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a file or a symlinked date folder at the trash is a clear exit 8, not unexpected", async () => {
    const { dir, names } = await syncedWithGone(1);
    writeFileSync(join(dir, ".svc-dl", "trash"), "not a folder");
    const r = await runCli(["packs", "sync", dir, "--prune"], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/trash is a symbolic link or not a directory.*code unsafe_state_dir/);
    expect(r.stderr).toContain("hint: Move ");
    expect(existsSync(join(dir, names[0] ?? ""))).toBe(true);

    const { dir: dir2, names: names2 } = await syncedWithGone(1);
    const elsewhere = mkdtempSync(join(tmpdir(), "svc-dl-elsewhere-"));
    mkdirSync(join(dir2, ".svc-dl", "trash"));
    const today = new Date().toISOString().slice(0, 10);
    symlinkSync(elsewhere, join(dir2, ".svc-dl", "trash", today));
    const r2 = await runCli(["packs", "sync", dir2, "--prune"], { env });
    expect(r2.code).toBe(8);
    expect(existsSync(join(dir2, names2[0] ?? ""))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a listing that contradicts itself (2 packs, total 4, no next page) moves nothing and says why", async () => {
    const { dir } = await syncedWithGone(0);
    const before = readdirSync(dir).sort();
    const front = await startFrontServer(
      mock.baseUrl,
      () => false,
      (path, body) => {
        if (!path.startsWith("/api/v1/packs?")) return body;
        const page = body as { data: unknown[]; pagination: Record<string, unknown> };
        return {
          data: page.data.slice(0, 2),
          pagination: { ...page.pagination, total: 4, has_more: false, next_cursor: null },
        };
      },
    );
    try {
      const r = await runCli(["packs", "sync", dir, "--prune", "--json"], {
        env: { ...env, SVC_BASE_URL: front.url },
      });
      expect(r.code).toBe(0);
      const warning = JSON.parse(r.stderr.trim().split("\n")[0] ?? "").warning;
      expect(warning.code).toBe("prune_refused");
      expect(warning.message).toContain("ended after 2 items, but its total says 4");
      const doc = JSON.parse(r.stdout) as PruneDoc;
      expect(doc.summary.pruned ?? 0).toBe(0);
      expect(doc.summary.not_owned).toBeGreaterThan(0);
    } finally {
      await front.close();
    }
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(existsSync(join(dir, ".svc-dl", "trash"))).toBe(false);
  });
});
