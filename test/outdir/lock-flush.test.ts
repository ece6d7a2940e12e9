import fs, { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writePrivateFileAtomic } from "../../src/io/safe-fs.js";
import { acquireDirLock } from "../../src/outdir/lock.js";

// The lock's owner and intent records name a process of this boot: after a power cut nobody
// holds the lock any more, so they are written atomically but never flushed (each flush of a
// small file and of its folder costs milliseconds at every start on a busy disk).

/** What each fsyncSync call flushed (the fd's path), while a test runs. */
let flushed: string[] = [];
const realFsync = fs.fsyncSync;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-lock-flush-"));
  flushed = [];
  // patch the built-in itself (named ESM imports follow after syncBuiltinESMExports)
  fs.fsyncSync = (fd: number) => {
    flushed.push(readlinkSync(`/proc/self/fd/${fd}`));
    realFsync(fd);
  };
  syncBuiltinESMExports();
});
afterEach(() => {
  fs.fsyncSync = realFsync;
  syncBuiltinESMExports();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === "linux")("the directory lock's records", () => {
  it("taking and releasing a lock flushes nothing; the owner record names this process", async () => {
    const lock = await acquireDirLock(dir);
    try {
      const owner = JSON.parse(readFileSync(join(dir, ".svc-dl", "lock-owner.json"), "utf8"));
      expect(owner.pid).toBe(process.pid);
    } finally {
      await lock.release();
    }
    expect(flushed).toEqual([]);
  });

  it("other private files are still flushed, the file and then its folder (control)", () => {
    writePrivateFileAtomic(join(dir, "state.json"), "{}\n");
    expect(flushed).toEqual([expect.stringMatching(/\.state\.json\..*\.tmp$/), dir]);
  });
});
