import {
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutputDir } from "../../src/outdir/output-dir.js";
import type { StateItem } from "../../src/outdir/state.js";

/**
 * cli-contract "Integrity", the record follows the file: a run killed at any instant of a
 * replacement leaves the old file with its old record, the new file with its new record, or no
 * record. The kill is injected at the exact instants around the rename: the move function
 * stops the run (throws) before or after renaming, and the directory is never closed.
 */

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-follow-"));

function recordOf(file: string, path: string, sha: string): StateItem {
  const st = statSync(path);
  return {
    kind: "pack",
    slug: "p",
    edition: "standard",
    file,
    size: st.size,
    etag: `"${sha}"`,
    sha256: sha.repeat(64),
    completed_at: "2026-01-01T00:00:00.000Z",
    mtime_ms: st.mtimeMs,
  };
}

class Killed extends Error {}

/** A directory holding p.zip ("old", recorded) and a complete new part ("newer!") to replace it. */
async function replacing(): Promise<{ dir: string; part: string; next: StateItem }> {
  const dir = tempDir();
  const first = await OutputDir.open(dir);
  const old = join(first.stateDir, "old.part");
  writeFileSync(old, "old");
  utimesSync(old, 1_000, 1_000);
  await first.record(recordOf("p.zip", old, "a"), () => renameSync(old, join(dir, "p.zip")));
  await first.close();
  const part = join(dir, ".svc-dl", "new.part");
  writeFileSync(part, "newer!");
  utimesSync(part, 2_000, 2_000);
  return { dir, part, next: recordOf("p.zip", part, "b") };
}

/** The record now on disk must describe the bytes now at the name, or be absent. */
function expectRecordMatchesFile(dir: string): StateItem | undefined {
  const rec = OutputDir.inspect(dir).recordedAt("p.zip");
  if (rec) {
    const bytes = readFileSync(join(dir, "p.zip"));
    expect(rec.size).toBe(bytes.length);
    expect(rec.sha256).toBe((bytes.toString() === "old" ? "a" : "b").repeat(64));
  }
  return rec;
}

describe("a crash while a recorded file is replaced leaves a record that matches the file, or none", () => {
  it("killed right after the rename: the new file has its new record", async () => {
    const { dir, part, next } = await replacing();
    const out = await OutputDir.open(dir);
    await expect(
      out.record(next, () => {
        renameSync(part, join(dir, "p.zip"));
        throw new Killed("SIGKILL");
      }),
    ).rejects.toThrow(Killed);
    // never closed, as after a SIGKILL; another process reads the directory
    expect(expectRecordMatchesFile(dir)?.sha256).toBe("b".repeat(64));
    const reopened = await OutputDir.open(dir, { lock: false });
    expect(reopened.recordedAt("p.zip")?.next).toBeUndefined();
    expect(reopened.recordedAt("p.zip")?.sha256).toBe("b".repeat(64));
  });

  it("killed right before the rename: the old file keeps its old record", async () => {
    const { dir, next } = await replacing();
    const out = await OutputDir.open(dir);
    await expect(
      out.record(next, () => {
        throw new Killed("SIGKILL");
      }),
    ).rejects.toThrow(Killed);
    expect(expectRecordMatchesFile(dir)?.sha256).toBe("a".repeat(64));
  });

  it("a file that is neither (changed by hand meanwhile) has no record", async () => {
    const { dir, part, next } = await replacing();
    const out = await OutputDir.open(dir);
    await expect(
      out.record(next, () => {
        renameSync(part, join(dir, "p.zip"));
        writeFileSync(join(dir, "p.zip"), "other bytes");
        throw new Killed("SIGKILL");
      }),
    ).rejects.toThrow(Killed);
    expect(expectRecordMatchesFile(dir)).toBeUndefined();
  });

  it("a move that fails (not a crash) leaves the old record in memory and on disk", async () => {
    const { dir, next } = await replacing();
    const out = await OutputDir.open(dir);
    await expect(
      out.record(next, () => {
        throw new Error("EXDEV");
      }),
    ).rejects.toThrow("EXDEV");
    expect(out.recordedAt("p.zip")?.next).toBeUndefined();
    expect(out.recordedAt("p.zip")?.sha256).toBe("a".repeat(64));
    await out.close();
    expect(expectRecordMatchesFile(dir)?.sha256).toBe("a".repeat(64));
  });
});
