import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireDirLock } from "../../src/outdir/lock.js";
import { launchCli, runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { install, makeProject } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

/** `install` writes a directory, so the global `--wait-lock SECONDS` applies to it. */

const shared = useMockService({
  packSize: 32 * 1024,
  assetSize: 8 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

const MANIFEST = { dir: "out", assets: ["free-sample-cube"] };

describe("svc-dl install: the directory lock", () => {
  it("exits 8 (locked) at once while another run holds dir, with no request", async () => {
    const p = makeProject(MANIFEST);
    const lock = await acquireDirLock(join(p.root, "out"));
    try {
      shared.mock.clearLog();
      const r = await install(shared.mock, p);
      expect(r.code, r.stderr).toBe(8);
      expect(JSON.parse(r.stderr).error.code).toBe("locked");
      expect(shared.mock.requests).toEqual([]);
    } finally {
      await lock.release();
    }
  });

  it("--wait-lock gives up with exit 8 after the given time, timed by the run's clock", async () => {
    const p = makeProject(MANIFEST);
    const lock = await acquireDirLock(join(p.root, "out"));
    try {
      shared.mock.clearLog();
      const clock = manualClock();
      const started = clock.now();
      const r = await runCli(["--wait-lock", "2", "install", "--json"], {
        cwd: p.root,
        env: {
          SVC_BASE_URL: shared.mock.baseUrl,
          SVC_API_KEY: shared.mock.apiKey,
          SVC_DL_CACHE_DIR: p.cache,
        },
        clock,
      });
      expect(r.code, r.stderr).toBe(8);
      expect(JSON.parse(r.stderr).error.code).toBe("locked");
      expect(clock.now() - started).toBeGreaterThanOrEqual(2000); // no real second waited
      expect(shared.mock.requests).toEqual([]);
    } finally {
      await lock.release();
    }
  });

  it("with --wait-lock waits for the lock, then installs once it is released", async () => {
    const p = makeProject(MANIFEST);
    const lock = await acquireDirLock(join(p.root, "out"));
    shared.mock.clearLog();
    const run = launchCli(["--wait-lock", "30", "install"], {
      cwd: p.root,
      env: {
        SVC_BASE_URL: shared.mock.baseUrl,
        SVC_API_KEY: shared.mock.apiKey,
        SVC_DL_CACHE_DIR: p.cache,
        NO_COLOR: "1",
      },
    });
    try {
      await run.waitFor("waiting up to");
      expect(shared.mock.requests).toEqual([]);
    } finally {
      await lock.release();
    }
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(p.root, "out", "free-sample-cube.glb"))).toBe(true);
    expect(existsSync(join(p.root, "svc-dl.lock"))).toBe(true);
  });
});
