import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquireDirLock } from "../../src/outdir/lock.js";
import { LOCK_REFRESH_MS, LOCK_STALE_MS, takeLockDir } from "../../src/outdir/lock-dir.js";
import { tempDir } from "../helpers/download.js";

const noLiveHolder = (): boolean => false;

/** Sets the mtime of `path` `ms` milliseconds into the past. */
function age(path: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(path, then, then);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("takeLockDir", () => {
  it("one holder at a time; release removes the directory and may be called twice", () => {
    const lock = join(tempDir(), "lock");
    const release = takeLockDir(lock, noLiveHolder);
    expect(release).toBeTypeOf("function");
    expect(statSync(lock).isDirectory()).toBe(true);
    expect(takeLockDir(lock, noLiveHolder)).toBeUndefined();
    release?.();
    release?.();
    expect(existsSync(lock)).toBe(false);
    const again = takeLockDir(lock, noLiveHolder);
    expect(again).toBeTypeOf("function");
    again?.();
  });

  it("a lock not refreshed for longer than the stale time is taken over; a fresh one is not", () => {
    const lock = join(tempDir(), "lock");
    mkdirSync(lock);
    age(lock, LOCK_STALE_MS - 2_000);
    expect(takeLockDir(lock, noLiveHolder)).toBeUndefined();
    age(lock, LOCK_STALE_MS + 1_000);
    const release = takeLockDir(lock, noLiveHolder);
    expect(release).toBeTypeOf("function");
    expect(Date.now() - statSync(lock).mtimeMs).toBeLessThan(LOCK_STALE_MS);
    release?.();
  });

  it("a stale lock whose holder still runs on this host stays held", () => {
    const lock = join(tempDir(), "lock");
    mkdirSync(lock);
    age(lock, 10 * LOCK_STALE_MS);
    expect(takeLockDir(lock, () => true)).toBeUndefined();
    expect(existsSync(lock)).toBe(true);
  });

  it("refreshes the mtime of a held lock every refresh interval", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const lock = join(tempDir(), "lock");
    const release = takeLockDir(lock, noLiveHolder);
    age(lock, LOCK_STALE_MS + 5_000);
    vi.advanceTimersByTime(LOCK_REFRESH_MS);
    expect(Date.now() - statSync(lock).mtimeMs).toBeLessThan(LOCK_REFRESH_MS);
    release?.();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("throws the mkdir error when the lock cannot be made (not an existing lock)", () => {
    const lock = join(tempDir(), "missing-parent", "lock");
    expect(() => takeLockDir(lock, noLiveHolder)).toThrow(/ENOENT/);
  });
});

describe("acquireDirLock over a lock of another host (a shared file system)", () => {
  it("is locked while its mtime is fresh, and taken over once it is stale", async () => {
    const dir = tempDir();
    const lock = join(dir, ".svc-dl", "lock");
    mkdirSync(lock, { recursive: true, mode: 0o700 });
    const owner = { pid: 1, host: "another-host.invalid", since: "2026-01-01T00:00:00Z" };
    writeFileSync(join(dir, ".svc-dl", "lock-owner.json"), JSON.stringify(owner), { mode: 0o600 });
    await expect(acquireDirLock(dir)).rejects.toMatchObject({ code: "locked", exitCode: 8 });
    age(lock, LOCK_STALE_MS + 1_000);
    const held = await acquireDirLock(dir);
    expect(held.dir).toBe(dir);
    await held.release();
    expect(existsSync(lock)).toBe(false);
  });
});
