import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PackEdition } from "../../src/model.js";
import { OutputDir } from "../../src/outdir/output-dir.js";
import { type StateFile, type StateItem, writeState } from "../../src/outdir/state.js";
import { type PlanOptions, planSync as planOutputDir } from "../../src/sync/plan.js";
import type { SyncTarget } from "../../src/sync/types.js";

/**
 * planSync (cli-contract "packs sync", "Downloads"): what a sync does with each target before
 * any request, from the state file and the files in DIR. Each test gets its own DIR.
 */

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-plan-"));
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

const AUTHORING_IF_ANY = "authoring edition, if the pack has one";

function target(slug: string, edition: PackEdition = "standard", url?: string): SyncTarget {
  const fallback =
    edition === "standard"
      ? `https://cdn.test/${slug}.zip`
      : `https://cdn.test/${slug}-authoring.zip`;
  return { slug, edition, url: url ?? fallback };
}

/** Writes `content` as `file` in `dir` and returns the record a completed download would leave. */
function completed(
  dir: string,
  slug: string,
  edition: PackEdition,
  file: string,
  content: string,
  extra: Partial<StateItem> = {},
): StateItem {
  const path = join(dir, file);
  writeFileSync(path, content);
  return {
    kind: "pack",
    slug,
    edition,
    file,
    size: Buffer.byteLength(content),
    etag: `"etag-${slug}-${edition}"`,
    sha256: sha256(content),
    completed_at: "2025-01-01T00:00:00.000Z",
    mtime_ms: statSync(path).mtimeMs,
    ...extra,
  };
}

function stateOf(...items: StateItem[]): StateFile {
  const state: StateFile = { version: 1, items: {} };
  for (const item of items) state.items[item.file] = item;
  return state;
}

const EMPTY: StateFile = { version: 1, items: {} };

/** Plans `targets` for `dir` holding `state` (written as its state file, then opened). */
async function planSync(
  dir: string,
  state: StateFile,
  targets: readonly SyncTarget[],
  opts: PlanOptions,
): ReturnType<typeof planOutputDir> {
  await writeState(dir, state);
  return planOutputDir(OutputDir.inspect(dir), targets, opts);
}
const PLAIN: PlanOptions = { refresh: false };

/** Sets the file's modification time to another second than it has now. */
function touchElsewhere(path: string): number {
  const old = statSync(path).mtimeMs;
  const other = new Date(Math.floor(old / 1000) * 1000 - 3_600_000);
  utimesSync(path, other, other);
  const now = statSync(path).mtimeMs;
  expect(now).not.toBe(old);
  return now;
}

describe("planSync: items never downloaded into DIR", () => {
  it("plans one entry per target, in target order, with no record", async () => {
    const targets = [target("b-pack"), target("a-pack"), target("a-pack", "authoring")];
    const plan = await planSync(tempDir(), EMPTY, targets, PLAIN);
    expect(plan.map((p) => p.target)).toEqual(targets);
    expect(plan.map((p) => [p.action, p.reason])).toEqual([
      ["fetch", "new"],
      ["fetch", "new"],
      ["fetch", "new"],
    ]);
    expect(plan.every((p) => p.recorded === undefined)).toBe(true);
  });

  it("plans nothing for no targets", async () => {
    expect(await planSync(tempDir(), EMPTY, [], PLAIN)).toEqual([]);
  });

  it.each<[string, PlanOptions]>([
    ["plain", { refresh: false }],
    ["--refresh", { refresh: true }],
    ["--dry-run", { refresh: false, dryRun: true }],
    ["--refresh --dry-run", { refresh: true, dryRun: true }],
  ])("a pack record without an authoring URL is unavailable, no request (%s)", async (_, opts) => {
    const t: SyncTarget = { slug: "forest", edition: "authoring", url: undefined };
    const [item] = await planSync(tempDir(), EMPTY, [t], opts);
    expect(item).toMatchObject({
      target: t,
      action: "unavailable",
      reason: "no authoring edition",
    });
    expect(item?.recorded).toBeUndefined();
  });

  it.each<[PackEdition, boolean, string]>([
    ["standard", false, "new"],
    ["standard", true, "new"],
    ["authoring", false, "new"],
    ["authoring", true, AUTHORING_IF_ANY],
  ])("%s edition, dry run %s: fetched with reason %s", async (edition, dryRun, reason) => {
    const [item] = await planSync(tempDir(), EMPTY, [target("forest", edition)], {
      refresh: false,
      dryRun,
    });
    expect(item?.action).toBe("fetch");
    expect(item?.reason).toBe(reason);
  });
});

describe("planSync: the memo of packs without an authoring edition (sync-unavailable.json)", () => {
  const memos: [string, ReadonlySet<string> | ReadonlyMap<string, string>][] = [
    ["a Set", new Set(["forest"])],
    ["a Map", new Map([["forest", "2025-01-02T03:04:05.000Z"]])],
  ];

  it.each(memos)(
    "an authoring edition remembered in %s is unavailable without a request",
    async (_, memo) => {
      const plan = await planSync(
        tempDir(),
        EMPTY,
        [target("forest", "authoring"), target("desert", "authoring")],
        { refresh: false, noAuthoring: memo },
      );
      expect(plan.map((p) => [p.target.slug, p.action, p.reason])).toEqual([
        ["forest", "unavailable", "no authoring edition"],
        ["desert", "fetch", "new"],
      ]);
    },
  );

  it.each(memos)(
    "a dry run reports a remembered one (%s) as unavailable, not as a maybe",
    async (_, memo) => {
      const [item] = await planSync(tempDir(), EMPTY, [target("forest", "authoring")], {
        refresh: false,
        dryRun: true,
        noAuthoring: memo,
      });
      expect(item?.action).toBe("unavailable");
    },
  );

  it.each<[string, boolean, string]>([
    ["a real run", false, "new"],
    ["a dry run", true, AUTHORING_IF_ANY],
  ])("--refresh asks again (%s)", async (_, dryRun, reason) => {
    const [item] = await planSync(tempDir(), EMPTY, [target("forest", "authoring")], {
      refresh: true,
      dryRun,
      noAuthoring: new Set(["forest"]),
    });
    expect(item?.action).toBe("fetch");
    expect(item?.reason).toBe(reason);
  });

  it("applies to authoring editions only: the standard edition of that pack is fetched", async () => {
    const [item] = await planSync(tempDir(), EMPTY, [target("forest", "standard")], {
      refresh: false,
      noAuthoring: new Set(["forest"]),
    });
    expect(item?.action).toBe("fetch");
    expect(item?.reason).toBe("new");
  });

  it("does not hide an authoring edition that is complete in DIR", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "authoring", "forest-authoring.zip", "PK authoring");
    const [item] = await planSync(dir, stateOf(rec), [target("forest", "authoring")], {
      refresh: false,
      noAuthoring: new Set(["forest"]),
    });
    expect(item?.action).toBe("skip");
    expect(item?.reason).toBe("already complete");
    expect(item?.recorded).toEqual(rec);
  });
});

describe("planSync: recorded items (size, mtime, SHA-256)", () => {
  it("a file with its recorded size and mtime is skipped, no restamp", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "skip", reason: "already complete", recorded: rec });
    expect(item?.restamp).toBeUndefined();
  });

  it("a deleted file is fetched again: missing locally", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    unlinkSync(join(dir, rec.file));
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "fetch", reason: "missing locally", recorded: rec });
  });

  it.each<[string, (path: string) => void]>([
    ["truncated", (p) => truncateSync(p, 3)],
    ["grown", (p) => writeFileSync(p, "PK forest bytes and more")],
  ])("a %s file is fetched again: size differs", async (_, change) => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    change(join(dir, rec.file));
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "fetch", reason: "size differs", recorded: rec });
  });

  it("same size, other mtime, other bytes: re-hashed and fetched again (changed locally)", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const path = join(dir, rec.file);
    writeFileSync(path, "PK FOREST BYTES");
    touchElsewhere(path);
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "fetch", reason: "changed locally", recorded: rec });
    expect(item?.restamp).toBeUndefined();
  });

  it("same bytes, other mtime: intact after a re-hash, with the new mtime to record", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const mtime = touchElsewhere(join(dir, rec.file));
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "skip", reason: "already complete", restamp: mtime });
  });

  it("a record without an mtime is re-hashed: intact, with the file's mtime to record", async () => {
    const dir = tempDir();
    const { mtime_ms, ...rec } = completed(dir, "forest", "standard", "forest.zip", "PK forest");
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "skip", restamp: mtime_ms });
  });

  it("same size and mtime but other bytes: trusted without --checksum, repaired with it", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const path = join(dir, rec.file);
    // Whole seconds, so that utimes can give the rewritten file the very same mtime.
    const when = new Date("2024-06-01T12:00:00.000Z");
    utimesSync(path, when, when);
    rec.mtime_ms = statSync(path).mtimeMs;
    writeFileSync(path, "PK forest BYTES");
    utimesSync(path, when, when);
    expect(statSync(path).mtimeMs).toBe(rec.mtime_ms);

    const [plain] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(plain?.action).toBe("skip");
    const [checked] = await planSync(dir, stateOf(rec), [target("forest")], {
      refresh: false,
      checksum: true,
    });
    expect(checked).toMatchObject({ action: "fetch", reason: "changed locally" });
  });

  it("--checksum on an intact file with its recorded mtime: skipped, nothing to restamp", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], {
      refresh: false,
      checksum: true,
    });
    expect(item).toMatchObject({ action: "skip", reason: "already complete" });
    expect(item?.restamp).toBeUndefined();
  });

  it.each<[string, (dir: string, file: string) => void]>([
    [
      "a symlink to an identical file",
      (dir, file) => {
        writeFileSync(join(dir, "elsewhere.zip"), "PK forest bytes");
        unlinkSync(join(dir, file));
        symlinkSync(join(dir, "elsewhere.zip"), join(dir, file));
      },
    ],
    [
      "a directory",
      (dir, file) => {
        unlinkSync(join(dir, file));
        mkdirSync(join(dir, file));
      },
    ],
  ])("a recorded file replaced by %s is fetched again: changed locally", async (_, replace) => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    replace(dir, rec.file);
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "fetch", reason: "changed locally" });
  });

  it("a re-hash stops on an aborted signal with its reason", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    touchElsewhere(join(dir, rec.file));
    const stop = new AbortController();
    const reason = new Error("interrupted");
    stop.abort(reason);
    await expect(
      planSync(dir, stateOf(rec), [target("forest")], { refresh: false, signal: stop.signal }),
    ).rejects.toBe(reason);
  });
});

describe("planSync: --refresh", () => {
  it("a complete item with an ETag is re-validated; without --refresh it is skipped", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    const [refreshed] = await planSync(dir, stateOf(rec), [target("forest")], { refresh: true });
    expect(refreshed).toMatchObject({
      action: "revalidate",
      reason: "already complete",
      recorded: rec,
    });
    const [plain] = await planSync(dir, stateOf(rec), [target("forest")], PLAIN);
    expect(plain?.action).toBe("skip");
  });

  it.each<[string, string | null]>([
    ["null", null],
    ["empty", ""],
  ])("a complete item whose ETag is %s cannot be re-validated: skipped", async (_, etag) => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes", { etag });
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], { refresh: true });
    expect(item).toMatchObject({ action: "skip", reason: "already complete" });
  });

  it("a changed file is fetched, not re-validated", async () => {
    const dir = tempDir();
    const rec = completed(dir, "forest", "standard", "forest.zip", "PK forest bytes");
    truncateSync(join(dir, rec.file), 1);
    const [item] = await planSync(dir, stateOf(rec), [target("forest")], { refresh: true });
    expect(item).toMatchObject({ action: "fetch", reason: "size differs" });
  });
});

describe("planSync: which record answers for a target", () => {
  it("records of another edition, another kind, or a name the user chose do not count", async () => {
    const dir = tempDir();
    const other = completed(dir, "forest", "authoring", "forest-authoring.zip", "PK a");
    const asset: StateItem = {
      ...completed(dir, "forest", "standard", "forest.glb", "glTF"),
      kind: "asset",
      edition: null,
    };
    const fixed = completed(dir, "forest", "standard", "mine.zip", "PK mine", {
      fixed_name: true,
    });
    const [item] = await planSync(dir, stateOf(other, asset, fixed), [target("forest")], PLAIN);
    expect(item).toMatchObject({ action: "fetch", reason: "new", recorded: undefined });
  });

  it("each edition of a pack is planned from its own record", async () => {
    const dir = tempDir();
    const std = completed(dir, "forest", "standard", "forest.zip", "PK standard");
    const auth = completed(dir, "forest", "authoring", "forest-authoring.zip", "PK authoring");
    unlinkSync(join(dir, auth.file));
    const plan = await planSync(
      dir,
      stateOf(std, auth),
      [target("forest", "standard"), target("forest", "authoring")],
      PLAIN,
    );
    expect(plan.map((p) => [p.action, p.reason, p.recorded?.file])).toEqual([
      ["skip", "already complete", "forest.zip"],
      ["fetch", "missing locally", "forest-authoring.zip"],
    ]);
  });

  it("of two records of one item, the most recently completed one is used", async () => {
    const dir = tempDir();
    const older = completed(dir, "forest", "standard", "forest-old.zip", "PK old", {
      completed_at: "2024-05-01T00:00:00.000Z",
    });
    const newer = completed(dir, "forest", "standard", "forest.zip", "PK new", {
      completed_at: "2025-05-01T00:00:00.000Z",
    });
    unlinkSync(join(dir, older.file));
    const [a] = await planSync(dir, stateOf(older, newer), [target("forest")], PLAIN);
    expect(a).toMatchObject({ action: "skip", recorded: newer });
    const [b] = await planSync(dir, stateOf(newer, older), [target("forest")], PLAIN);
    expect(b).toMatchObject({ action: "skip", recorded: newer });
  });
});
