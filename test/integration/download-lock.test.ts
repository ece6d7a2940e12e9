import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireDirLock } from "../../src/download/lock.js";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { CLI_BIN, runCli, tempConfigDir } from "../helpers/cli.js";
import { envFor, tempDir } from "./download-helpers.js";

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
    mock.set({ faults: { throttleBytesPerSecond: 128 * 1024 } });
    try {
      const first = spawn(process.execPath, [CLI_BIN, "pack", "get", "low-poly-forest"], {
        cwd: dir,
        env: { ...process.env, ...envFor(mock), SVC_DL_CONFIG_DIR: tempConfigDir() },
        stdio: "ignore",
      });
      const firstDone = new Promise<number | null>((resolve) => first.on("close", resolve));
      for (let i = 0; i < 200 && !existsSync(join(dir, ".svc-dl", "lock")); i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      const second = await runCli(["pack", "get", "sci-fi-props", "--json"], {
        env: envFor(mock),
        cwd: dir,
      });
      expect(second.code).toBe(8);
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
