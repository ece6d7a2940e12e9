import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { acquireDirLock } from "../../src/outdir/lock.js";
import { launchCli, runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { envFor, tempDir } from "../helpers/download.js";
import { whenInDir } from "../helpers/wait.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 256 * 1024, assetSize: 32 * 1024 });
});
afterAll(async () => {
  await mock.close();
});

describe("directory lock", () => {
  it("a second run on a directory another live process holds exits 8 (locked) and touches nothing", async () => {
    const dir = tempDir();
    const lock = await acquireDirLock(dir);
    try {
      mock.clearLog();
      const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
      expect(r.code).toBe(8);
      expect(r.stderr).toContain("locked");
      expect(mock.requests).toEqual([]);
    } finally {
      await lock.release();
    }
    const after = await runCli(["asset", "get", "forest-pine-tree"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(after.code).toBe(0);
  });

  it("two overlapping CLI runs: the second exits 8 while the first is downloading", async () => {
    const dir = tempDir();
    mock.set({ faults: { throttleBytesPerSecond: 2 * 1024 } });
    try {
      const first = launchCli(["pack", "get", "low-poly-forest"], { cwd: dir, env: envFor(mock) });
      const firstDone = first.done.then((r) => r.code);
      await whenInDir(join(dir, ".svc-dl"), () => existsSync(join(dir, ".svc-dl", "lock")), {
        what: "the first run's lock",
        until: first.done,
      });
      const second = await runCli(["pack", "get", "sci-fi-props", "--json"], {
        env: envFor(mock),
        cwd: dir,
      });
      expect(second.code, second.stderr + second.stdout).toBe(8);
      expect(JSON.parse(second.stderr).error.code).toBe("locked");
      mock.set({ faults: {} });
      expect(await firstDone).toBe(0);
    } finally {
      mock.set({ faults: {} });
    }
  });

  it("a lock left by a killed process on this host is taken over at once", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".svc-dl", "lock"), { recursive: true });
    const dead = spawn(process.execPath, ["-e", "0"]);
    await new Promise((r) => dead.on("close", r));
    writeFileSync(
      join(dir, ".svc-dl", "lock-owner.json"),
      JSON.stringify({ pid: dead.pid, host: hostname(), since: new Date().toISOString() }),
    );
    const r = await runCli(["asset", "get", "forest-pine-tree"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);
  });
});

describe("takeover of a dead owner's lock with a deep tree planted in it", () => {
  it("removes the tree iteratively and takes the lock", { timeout: 120_000 }, async () => {
    const dir = tempDir();
    let at = join(dir, ".svc-dl", "lock");
    mkdirSync(at, { recursive: true, mode: 0o700 });
    let levels = 0;
    for (;;) {
      try {
        mkdirSync(join(at, "a"));
      } catch {
        break; // as deep as an absolute path allows (about 2,000 levels)
      }
      at = join(at, "a");
      levels++;
    }
    expect(levels).toBeGreaterThan(1900);
    const dead = spawn(process.execPath, ["-e", "0"]);
    await new Promise((r) => dead.on("close", r));
    writeFileSync(
      join(dir, ".svc-dl", "lock-owner.json"),
      JSON.stringify({ pid: dead.pid, host: hostname(), since: new Date().toISOString() }),
    );
    const lock = await acquireDirLock(dir);
    await lock.release();
    expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);
  });
});

describe("a run killed between taking the lock and writing its owner record", () => {
  async function deadPid(): Promise<number> {
    const dead = spawn(process.execPath, ["-e", "0"]);
    await new Promise((r) => dead.on("close", r));
    return dead.pid ?? 0;
  }

  it("leaves a dead intent record: the lock is taken over at once", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".svc-dl", "lock"), { recursive: true, mode: 0o700 });
    const pid = await deadPid();
    writeFileSync(
      join(dir, ".svc-dl", `lock-intent-${pid}`),
      JSON.stringify({ pid, host: hostname(), since: new Date().toISOString() }),
      { mode: 0o600 },
    );
    const lock = await acquireDirLock(dir);
    await lock.release();
    expect(existsSync(join(dir, ".svc-dl", `lock-intent-${pid}`))).toBe(false);
    expect(ownIntents(dir)).toEqual([]);
  });

  it("a live intent, or none at all, still means locked", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".svc-dl", "lock"), { recursive: true, mode: 0o700 });
    await expect(acquireDirLock(dir)).rejects.toMatchObject({ code: "locked" });
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      writeFileSync(
        join(dir, ".svc-dl", `lock-intent-${live.pid}`),
        JSON.stringify({ pid: live.pid, host: hostname(), since: new Date().toISOString() }),
        { mode: 0o600 },
      );
      await expect(acquireDirLock(dir)).rejects.toMatchObject({ code: "locked" });
    } finally {
      live.kill();
    }
    expect(ownIntents(dir)).toEqual([]);
  });
});

describe("--wait-lock SECONDS", () => {
  it("waits for another run's lock, then downloads once it is released", async () => {
    const dir = tempDir();
    const lock = await acquireDirLock(dir);
    mock.clearLog();
    const run = launchCli(["--wait-lock", "30", "asset", "get", "forest-pine-tree"], {
      cwd: dir,
      env: { ...envFor(mock), NO_COLOR: "1" },
    });
    try {
      await run.waitFor("waiting up to");
      expect(mock.requests).toEqual([]);
    } finally {
      await lock.release();
    }
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, "forest-pine-tree.glb"))).toBe(true);
  });

  it("gives up with exit 8 (locked) after the given time; 0 (the default) fails at once", async () => {
    const dir = tempDir();
    const lock = await acquireDirLock(dir);
    try {
      const clock = manualClock();
      const started = clock.now();
      const r = await runCli(["--wait-lock", "1", "packs", "sync", dir, "--json"], {
        env: envFor(mock),
        clock,
      });
      expect(r.code).toBe(8);
      expect(JSON.parse(r.stderr).error.code).toBe("locked");
      expect(JSON.parse(r.stderr).error.hint).toContain("--wait-lock");
      // the run's clock timed the wait: a full second on it, none of it real
      expect(clock.now() - started).toBeGreaterThanOrEqual(1000);
      const now = await runCli(["packs", "sync", dir, "--json"], { env: envFor(mock) });
      expect(now.code).toBe(8);
    } finally {
      await lock.release();
    }
  });

  it("SIGINT while waiting exits 130 at once", async () => {
    const dir = tempDir();
    const lock = await acquireDirLock(dir);
    try {
      const run = launchCli(["--wait-lock", "60", "packs", "sync", dir], {
        cwd: dir,
        env: { ...envFor(mock), NO_COLOR: "1" },
      });
      await run.waitFor("waiting up to");
      const killedAt = Date.now();
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(Date.now() - killedAt).toBeLessThan(5000);
    } finally {
      await lock.release();
    }
  });

  it("polls on a clock: no busy loop, a stale owner taken over at once", async () => {
    const dir = tempDir();
    const held = await acquireDirLock(dir);
    let clock = 0;
    const sleeps: number[] = [];
    const waited = acquireDirLock(dir, {
      waitSeconds: 2,
      clock: {
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      },
    });
    await expect(waited).rejects.toMatchObject({ code: "locked", exitCode: 8 });
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(2000);
    expect(sleeps.every((ms) => ms > 0 && ms <= 250)).toBe(true);
    await held.release();
  });
});

/** This process's intent records left in `dir/.svc-dl` (`lock-intent-<pid>-<random>`). */
function ownIntents(dir: string): string[] {
  return readdirSync(join(dir, ".svc-dl")).filter((n) =>
    n.startsWith(`lock-intent-${process.pid}-`),
  );
}
