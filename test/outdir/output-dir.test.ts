import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { journalPathOf } from "../../src/outdir/journal.js";
import { OutputDir } from "../../src/outdir/output-dir.js";
import { type StateItem, statePathOf } from "../../src/outdir/state.js";

/**
 * OutputDir (cli-contract "Downloads"; "Untrusted text, paths and caches": Scale): one object
 * per run owns the directory; the state is read once, written through a journal, and the
 * ordering rule "recorded before it appears, replaced after" lives in record().
 */

const open: OutputDir[] = [];
afterEach(async () => {
  for (const out of open.splice(0)) await out.close();
});

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-outdir-"));

async function openDir(dir: string): Promise<OutputDir> {
  const out = await OutputDir.open(dir);
  open.push(out);
  return out;
}

function rec(slug: string, file: string, extra: Partial<StateItem> = {}): StateItem {
  return {
    kind: "pack",
    slug,
    edition: "standard",
    file,
    size: 3,
    etag: '"e"',
    sha256: "a".repeat(64),
    completed_at: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

/** What another process would see on disk now (snapshot plus journal). */
const onDisk = (dir: string) => OutputDir.inspect(dir);

describe("OutputDir.record: the ordering rule", () => {
  it("records a new file before it appears, a replaced file after", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    const src = join(out.stateDir, "new.tmp");
    writeFileSync(src, "one");
    let seenBefore: StateItem | undefined;
    const mtimeOf = (path: string) => ({ mtime_ms: statSync(path).mtimeMs });
    await out.record(rec("p", "p.zip", mtimeOf(src)), () => {
      seenBefore = onDisk(dir).recordedAt("p.zip");
      renameSync(src, join(dir, "p.zip"));
    });
    expect(seenBefore?.slug).toBe("p");

    writeFileSync(src, "two");
    let seenDuring: StateItem | undefined;
    await out.record(rec("p", "p.zip", { sha256: "b".repeat(64), ...mtimeOf(src) }), () => {
      seenDuring = onDisk(dir).recordedAt("p.zip");
      renameSync(src, join(dir, "p.zip"));
    });
    expect(seenDuring?.sha256).toBe("a".repeat(64));
    expect(onDisk(dir).recordedAt("p.zip")?.sha256).toBe("b".repeat(64));
  });

  it("one item has one record: recording it under a new name drops the stale one", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    await out.record(rec("p", "renamed.zip", { fixed_name: true }));
    await out.record(rec("q", "q.zip"));
    await out.record(rec("p", "p.zip"));
    expect(out.recordedAt("renamed.zip")).toBeUndefined();
    expect(out.records().map((r) => r.file)).toEqual(["p.zip", "q.zip"]);
    expect(out.recorded({ kind: "pack", slug: "p", edition: "standard" })?.file).toBe("p.zip");
    await out.close();
    expect(
      onDisk(dir)
        .records()
        .map((r) => r.file),
    ).toEqual(["p.zip", "q.zip"]);
  });
});

describe("OutputDir: read once, written through the journal", () => {
  it("answers from memory: the state is not read again while the run holds the directory", async () => {
    const dir = tempDir();
    const first = await openDir(dir);
    await first.record(rec("p", "p.zip"));
    await first.close();
    const out = await openDir(dir);
    writeFileSync(statePathOf(dir), '{"version":1,"items":{}}\n');
    expect(out.recordedAt("p.zip")?.slug).toBe("p");
  });

  it("rewrites the snapshot once per run; every later placed file is one journal line", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    for (const slug of ["a", "b", "c"]) {
      await out.record(rec(slug, `${slug}.zip`), () =>
        writeFileSync(join(dir, `${slug}.zip`), "x"),
      );
    }
    const snapshot = JSON.parse(readFileSync(statePathOf(dir), "utf8")) as {
      items: Record<string, unknown>;
      generation: string;
    };
    expect(Object.keys(snapshot.items)).toEqual(["a.zip"]);
    const lines = readFileSync(journalPathOf(dir), "utf8").trim().split("\n");
    expect(JSON.parse(lines[0] ?? "")).toEqual({ generation: snapshot.generation });
    expect(lines).toHaveLength(3);
    // A run killed here: the next reader replays the journal.
    expect(
      onDisk(dir)
        .records()
        .map((r) => r.file),
    ).toEqual(["a.zip", "b.zip", "c.zip"]);
    await out.close();
    expect(existsSync(journalPathOf(dir))).toBe(false);
    const final = JSON.parse(readFileSync(statePathOf(dir), "utf8")) as Record<string, unknown>;
    expect(Object.keys(final.items as object)).toEqual(["a.zip", "b.zip", "c.zip"]);
    expect(final.generation).toBeUndefined();
  });

  it("a run with one change writes the snapshot once: no journal, nothing more at close", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    await out.record(rec("a", "a.zip"), () => writeFileSync(join(dir, "a.zip"), "x"));
    const written = readFileSync(statePathOf(dir), "utf8");
    expect(existsSync(journalPathOf(dir))).toBe(false);
    await out.close();
    expect(readFileSync(statePathOf(dir), "utf8")).toBe(written);
    expect(onDisk(dir).recordedAt("a.zip")?.slug).toBe("a");
  });

  it("a journal left by a killed run is folded into the next run's first snapshot, then removed", async () => {
    const dir = tempDir();
    const killed = await OutputDir.open(dir, { lock: false });
    await killed.record(rec("a", "a.zip"), () => writeFileSync(join(dir, "a.zip"), "x"));
    await killed.record(rec("b", "b.zip"), () => writeFileSync(join(dir, "b.zip"), "x"));
    expect(existsSync(journalPathOf(dir))).toBe(true); // never closed: as after a SIGKILL
    const out = await openDir(dir);
    await out.record(rec("c", "c.zip"), () => {
      expect(existsSync(journalPathOf(dir))).toBe(false);
      writeFileSync(join(dir, "c.zip"), "x");
    });
    const files = (o: OutputDir) => o.records().map((r) => r.file);
    expect(files(onDisk(dir))).toEqual(["a.zip", "b.zip", "c.zip"]);
    await out.close();
    expect(files(onDisk(dir))).toEqual(["a.zip", "b.zip", "c.zip"]);
  });

  it("keeps adopted records and restamps in memory until close", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    await out.record(rec("p", "p.zip"));
    out.restamp("p.zip", 1234);
    expect(onDisk(dir).recordedAt("p.zip")).toBeUndefined();
    await out.close();
    expect(onDisk(dir).recordedAt("p.zip")?.mtime_ms).toBe(1234);
  });

  it("ignores a journal that extends another snapshot, and a hostile or torn journal line", async () => {
    const dir = tempDir();
    const out = await openDir(dir);
    await out.record(rec("a", "a.zip"), () => writeFileSync(join(dir, "a.zip"), "x"));
    await out.record(rec("b", "b.zip"), () => writeFileSync(join(dir, "b.zip"), "x"));
    const journal = journalPathOf(dir);
    const text = readFileSync(journal, "utf8");
    appendFileSync(journal, `${JSON.stringify({ set: rec("evil", "../outside.zip") })}\n`);
    expect(
      onDisk(dir)
        .records()
        .map((r) => r.file),
    ).toEqual(["a.zip", "b.zip"]);
    writeFileSync(journal, `${text}{"set":{"kind":"pa`);
    expect(
      onDisk(dir)
        .records()
        .map((r) => r.file),
    ).toEqual(["a.zip", "b.zip"]);
    // An older svc-dl rewrote the snapshot without a generation: the journal no longer applies.
    const snapshot = JSON.parse(readFileSync(statePathOf(dir), "utf8")) as { items: object };
    writeFileSync(statePathOf(dir), JSON.stringify({ version: 1, items: snapshot.items }));
    expect(
      onDisk(dir)
        .records()
        .map((r) => r.file),
    ).toEqual(["a.zip"]);
  });

  it("refuses to write through a read-only view", () => {
    const out = OutputDir.inspect(tempDir());
    expect(out.records()).toEqual([]);
    expect(() => out.restamp("p.zip", 1)).toThrow(/not open for writing/);
  });
});
