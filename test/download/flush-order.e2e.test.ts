import fs, { readlinkSync, realpathSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";
import { envFor, tempDir } from "../helpers/download.js";

// What a `pack get` of one file flushes, and in which order (docs/performance.md
// "Durability"): the part file before its rename into place, the folders after it, the state
// snapshot once per run; the partial metadata and the lock's records never (see partial.ts).

/** fsync / fdatasync (the path behind the fd) and renames, in the order they were called. */
let calls: string[] = [];
const real = {
  fsyncSync: fs.fsyncSync,
  fsync: fs.fsync,
  fdatasync: fs.fdatasync,
  renameSync: fs.renameSync,
};
const pathOf = (fd: number): string => readlinkSync(`/proc/self/fd/${fd}`);

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 64 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  calls = [];
  // patch the built-ins themselves (named ESM imports follow after syncBuiltinESMExports)
  fs.fsyncSync = (fd) => {
    calls.push(`fsync ${pathOf(fd)}`);
    real.fsyncSync(fd);
  };
  fs.fsync = ((fd: number, cb: fs.NoParamCallback) => {
    calls.push(`fsync ${pathOf(fd)}`);
    real.fsync(fd, cb);
  }) as typeof fs.fsync;
  fs.fdatasync = ((fd: number, cb: fs.NoParamCallback) => {
    calls.push(`fdatasync ${pathOf(fd)}`);
    real.fdatasync(fd, cb);
  }) as typeof fs.fdatasync;
  fs.renameSync = (from, to) => {
    calls.push(`rename ${String(from)} -> ${String(to)}`);
    real.renameSync(from, to);
  };
  syncBuiltinESMExports();
});
afterEach(() => {
  Object.assign(fs, real);
  syncBuiltinESMExports();
});

/** The calls with `dir` shown as `DIR` and temp-file suffixes as `.TMP`. */
function shown(dir: string): string[] {
  return calls.map((c) =>
    c
      .split(dir)
      .join("DIR")
      .replace(/\.\d+\.[a-z0-9]+\.tmp\b/g, ".TMP")
      .replace(/lock-intent-\d+-[0-9a-f]+/g, "lock-intent-ID"),
  );
}

describe.runIf(process.platform === "linux")("pack get: what reaches the disk, in order", () => {
  it("flushes the part before its rename, the folders after it, the state once; not the partial metadata", async () => {
    const dir = realpathSync(tempDir());
    const r = await runCli(["pack", "get", "low-poly-forest", "-o", `${dir}/`], {
      env: envFor(mock),
    });
    expect(r.code, r.stderr).toBe(0);
    const part = "DIR/.svc-dl/pack-standard-low-poly-forest.part";
    const file = r.stdout.trim().split(dir).join("DIR");
    expect(file).toMatch(/^DIR\/[^/]+\.zip$/);
    expect(shown(dir)).toEqual([
      // the lock's records: replaced atomically, never flushed
      "rename DIR/.svc-dl/.lock-intent-ID.TMP -> DIR/.svc-dl/lock-intent-ID",
      "rename DIR/.svc-dl/.lock-owner.json.TMP -> DIR/.svc-dl/lock-owner.json",
      // the metadata is renamed into place but not flushed, nor is its folder
      `rename DIR/.svc-dl/.pack-standard-low-poly-forest.part.json.TMP -> ${part}.json`,
      `fsync ${part}`,
      // the record of a new file is on the disk before the file appears
      "fsync DIR/.svc-dl/.state.json.TMP",
      "rename DIR/.svc-dl/.state.json.TMP -> DIR/.svc-dl/state.json",
      "fsync DIR/.svc-dl",
      `rename ${part} -> ${file}`,
      "fsync DIR",
      "fsync DIR/.svc-dl",
      // and nothing at close: that snapshot already holds the whole state
    ]);
  });

  it("a second file in the same run goes to the journal; the snapshot is rewritten at close", async () => {
    const dir = realpathSync(tempDir());
    const r = await runCli(["pack", "get", "low-poly-forest", "sci-fi-props", "-o", `${dir}/`], {
      env: envFor(mock),
    });
    expect(r.code, r.stderr).toBe(0);
    const states = shown(dir).filter((c) => c.startsWith("rename DIR/.svc-dl/.state.json"));
    expect(states).toHaveLength(2);
    const flushes = shown(dir).filter((c) => c.startsWith("fsync"));
    // per file: the part, the two folders after its rename; per run: two snapshots and their folder
    expect(flushes).toHaveLength(2 * 3 + 2 * 2);
    expect(flushes.filter((c) => c.includes(".part.json"))).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("pack get: a file already up to date", () => {
  it("flushes nothing and writes only the lock's records", async () => {
    const dir = realpathSync(tempDir());
    const args = ["pack", "get", "low-poly-forest", "-o", `${dir}/`];
    expect((await runCli(args, { env: envFor(mock) })).code).toBe(0);
    calls = [];
    const r = await runCli(args, { env: envFor(mock) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("up to date");
    expect(shown(dir)).toEqual([
      "rename DIR/.svc-dl/.lock-intent-ID.TMP -> DIR/.svc-dl/lock-intent-ID",
      "rename DIR/.svc-dl/.lock-owner.json.TMP -> DIR/.svc-dl/lock-owner.json",
    ]);
  });
});
