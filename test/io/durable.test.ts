import * as fs from "node:fs";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openHashingWriter } from "../../src/download/writer.js";
import {
  BackgroundSync,
  DirSyncBatch,
  type DurableFs,
  durableRename,
  syncDir,
  syncTree,
} from "../../src/io/durable.js";
import { tempDir } from "../helpers/files.js";

/** The real file system, with every call recorded as `call:path` (an fd is named by its path). */
function recordingFs(opts: { holdDatasync?: boolean } = {}) {
  const calls: string[] = [];
  const paths = new Map<number, string>();
  const held: (() => void)[] = [];
  const name = (fd: number): string => paths.get(fd) ?? `fd${fd}`;
  const rec: DurableFs = {
    openSync(path, flags) {
      const fd = fs.openSync(path, flags);
      paths.set(fd, path);
      calls.push(`open:${path}`);
      return fd;
    },
    closeSync(fd) {
      calls.push(`close:${name(fd)}`);
      fs.closeSync(fd);
    },
    fsyncSync(fd) {
      calls.push(`fsync:${name(fd)}`);
      fs.fsyncSync(fd);
    },
    renameSync(from, to) {
      calls.push(`rename:${from}>${to}`);
      fs.renameSync(from, to);
    },
    fsync(fd, cb) {
      calls.push(`fsync:${name(fd)}`);
      fs.fsync(fd, cb);
    },
    fdatasync(fd, cb) {
      calls.push(`fdatasync:${name(fd)}`);
      const run = (): void =>
        fs.fdatasync(fd, (err) => {
          calls.push(`fdatasync-done:${name(fd)}`);
          cb(err);
        });
      if (opts.holdDatasync) held.push(run);
      else run();
    },
  };
  return { fs: rec, calls, held, track: (fd: number, path: string) => paths.set(fd, path) };
}

describe("durableRename", () => {
  it("flushes the file before the rename and both directories after it", () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".svc-dl"));
    const part = join(dir, ".svc-dl", "a.part");
    const final = join(dir, "a.zip");
    writeFileSync(part, "bytes");
    const r = recordingFs();
    durableRename(part, final, {}, r.fs);
    expect(r.calls).toEqual([
      `open:${part}`,
      `fsync:${part}`,
      `close:${part}`,
      `rename:${part}>${final}`,
      `open:${dir}`,
      `fsync:${dir}`,
      `close:${dir}`,
      `open:${join(dir, ".svc-dl")}`,
      `fsync:${join(dir, ".svc-dl")}`,
      `close:${join(dir, ".svc-dl")}`,
    ]);
    expect(readFileSync(final, "utf8")).toBe("bytes");
  });

  it("does not rename when the flush fails", () => {
    const dir = tempDir();
    const part = join(dir, "a.part");
    writeFileSync(part, "x");
    const r = recordingFs();
    const failing: DurableFs = {
      ...r.fs,
      fsyncSync: () => {
        throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
      },
    };
    expect(() => durableRename(part, join(dir, "a.zip"), {}, failing)).toThrow(/EIO/);
    expect(r.calls.some((c) => c.startsWith("rename:"))).toBe(false);
    expect(r.calls.at(-1)).toBe(`close:${part}`);
  });
});

describe("syncDir", () => {
  it("leaves alone a directory the platform cannot flush, and reports any other failure", () => {
    const r = recordingFs();
    const refusing = (code: string): DurableFs => ({
      ...r.fs,
      fsyncSync: () => {
        throw Object.assign(new Error(code), { code });
      },
    });
    const dir = tempDir();
    expect(() => syncDir(dir, refusing("EINVAL"))).not.toThrow();
    expect(() => syncDir(dir, refusing("EIO"))).toThrow(/EIO/);
    // every fd opened was closed
    expect(r.calls.filter((c) => c.startsWith("open:")).length).toBe(
      r.calls.filter((c) => c.startsWith("close:")).length,
    );
  });
});

describe("syncTree", () => {
  it("flushes every file, then the folders deepest first, then the root", async () => {
    const root = tempDir();
    mkdirSync(join(root, "a", "b"), { recursive: true });
    writeFileSync(join(root, "a", "b", "f.txt"), "1");
    writeFileSync(join(root, "g.txt"), "2");
    const r = recordingFs();
    await syncTree(root, { files: ["a/b/f.txt", "g.txt"], dirs: ["a", "a/b"] }, r.fs);
    const fsyncs = r.calls.filter((c) => c.startsWith("fsync:"));
    expect(fsyncs.slice(0, 2).sort()).toEqual(
      [`fsync:${join(root, "a", "b", "f.txt")}`, `fsync:${join(root, "g.txt")}`].sort(),
    );
    expect(fsyncs.slice(2)).toEqual([
      `fsync:${join(root, "a", "b")}`,
      `fsync:${join(root, "a")}`,
      `fsync:${root}`,
    ]);
  });
});

describe("BackgroundSync and the download writer", () => {
  it("starts one fdatasync per interval, never two at once, and closes only after it returns", async () => {
    const dir = tempDir();
    const path = join(dir, "x.part");
    const r = recordingFs({ holdDatasync: true });
    const writer = openHashingWriter(path, 0, {
      batchBytes: 1024,
      maxDelayMs: 60_000,
      syncEveryBytes: 4096,
      fs: r.fs,
    });
    const chunk = Buffer.alloc(1024, 7);
    for (let i = 0; i < 12; i++) writer.write(chunk);
    // 4 KiB written → one fdatasync queued; 12 KiB written → still only that one
    expect(r.calls.filter((c) => c.startsWith("fdatasync:"))).toHaveLength(1);
    writer.close();
    expect(r.calls.some((c) => c.startsWith("close:"))).toBe(false);
    for (const run of r.held.splice(0)) run();
    await writer.settled();
    const done = r.calls.findIndex((c) => c.startsWith("fdatasync-done:"));
    const closed = r.calls.findIndex((c) => c.startsWith("close:"));
    expect(done).toBeGreaterThanOrEqual(0);
    expect(closed).toBeGreaterThan(done);
    expect(readFileSync(path).length).toBe(12 * 1024);
  });

  it("reports a failed background flush when the caller waits for it", async () => {
    const calls: string[] = [];
    const failing: DurableFs = {
      ...fs,
      closeSync: () => calls.push("close"),
      fdatasync: (_fd, cb) => {
        calls.push("fdatasync");
        setImmediate(() => cb(Object.assign(new Error("EIO: i/o error"), { code: "EIO" })));
      },
    };
    const sync = new BackgroundSync(99, 0, 10, failing);
    sync.wrote(5);
    expect(calls).toEqual([]);
    sync.wrote(10);
    sync.wrote(20); // one in flight: no second
    expect(calls).toEqual(["fdatasync"]);
    sync.close();
    await expect(sync.settled()).rejects.toThrow(/EIO/);
    expect(calls).toEqual(["fdatasync", "close"]);
  });
});

describe("DirSyncBatch (many renames into one folder)", () => {
  it("flushes each file before its rename, and each directory once, when the batch is flushed", () => {
    const dir = tempDir();
    const stage = join(dir, ".stage");
    mkdirSync(stage);
    const rec = recordingFs();
    const batch = new DirSyncBatch(rec.fs);
    for (const name of ["a.zip", "b.zip", "c.zip"]) {
      writeFileSync(join(stage, name), name);
      durableRename(join(stage, name), join(dir, name), { dirs: batch }, rec.fs);
    }
    const fsyncs = () => rec.calls.filter((c) => c.startsWith("fsync:"));
    expect(fsyncs()).toEqual([
      `fsync:${join(stage, "a.zip")}`,
      `fsync:${join(stage, "b.zip")}`,
      `fsync:${join(stage, "c.zip")}`,
    ]);
    for (const name of ["a.zip", "b.zip", "c.zip"]) {
      const synced = rec.calls.indexOf(`fsync:${join(stage, name)}`);
      const renamed = rec.calls.indexOf(`rename:${join(stage, name)}>${join(dir, name)}`);
      expect(synced).toBeLessThan(renamed);
    }
    batch.flush();
    expect(fsyncs().slice(3)).toEqual([`fsync:${dir}`, `fsync:${stage}`]);
    batch.flush();
    expect(fsyncs()).toHaveLength(5);
    expect(readFileSync(join(dir, "b.zip"), "utf8")).toBe("b.zip");
  });

  it("without a batch, durableRename flushes the directories at once", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "x.part"), "x");
    const rec = recordingFs();
    durableRename(join(dir, "x.part"), join(dir, "x.zip"), {}, rec.fs);
    expect(rec.calls.filter((c) => c.startsWith("fsync:"))).toEqual([
      `fsync:${join(dir, "x.part")}`,
      `fsync:${dir}`,
    ]);
  });
});
