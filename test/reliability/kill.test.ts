/**
 * SIGKILL at points of the download. A throttled multi-MiB pack download is killed 20 times at
 * points drawn from a seeded PRNG (the seed is printed; set RELIABILITY_SEED to replay one) and
 * re-run each time; the last run must end byte-identical. A point is an event of the run, never
 * a time: the lock taken (before any request), or partial data grown by a drawn number of bytes
 * over what the previous runs kept. A watcher checks the final path during the whole test:
 * whenever it exists it holds the complete, identical file. A second test kills exactly when
 * the file is renamed into place, the narrowest window there is.
 */
import { existsSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { type LaunchedCli, launchCli } from "../helpers/cli.js";
import { prng } from "../helpers/prng.js";
import { whenInDir } from "../helpers/wait.js";
import {
  envFor,
  finalFiles,
  finalPathProblem,
  partFiles,
  run,
  sha256,
  tempDir,
} from "./helpers/harness.js";

// Partial data reaches the disk in batches (up to one per 500 ms: about 128 KiB at the throttle
// below), so a run writes a batch or two before its kill: 20 runs stay far from the whole file.
const SIZE = 8 * 1024 * 1024;
const THROTTLE = 256 * 1024;
const SLUG = "sci-fi-props";
const KILLS = 20;

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({
    packSize: SIZE,
    limits: {
      download: { quota: 1000, windowSeconds: 60 },
      read: { quota: 1000, windowSeconds: 60 },
    },
  });
});
afterAll(async () => {
  await mock.close();
});

/**
 * Watches `path` (fs.watch events plus a 5 ms poll): every time it exists it must hold exactly
 * `sha` — never a partial or corrupt file. Returns a stop function that reports violations.
 */
function guardFinalPath(dir: string, name: string, sha: string): () => string[] {
  const path = join(dir, name);
  const violations: string[] = [];
  const check = (): void => {
    if (!existsSync(path)) return;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return;
    }
    if (sha256(bytes) !== sha)
      violations.push(`${name} held ${bytes.length} bytes of other content`);
  };
  const watcher = watch(dir, (_event, file) => {
    if (file === name) check();
  });
  const timer = setInterval(check, 5);
  return () => {
    watcher.close();
    clearInterval(timer);
    check();
    return violations;
  };
}

/** Bytes of partial data in `dir`; 0 when there is none (or it is being renamed away). */
function partialBytes(dir: string): number {
  try {
    return partFiles(dir)[0]?.bytes ?? 0;
  } catch {
    return 0;
  }
}

/** The pid in the lock's owner record of `dir`, if there is a readable one. */
function lockOwnerPid(dir: string): number | undefined {
  try {
    const owner = JSON.parse(readFileSync(join(dir, ".svc-dl", "lock-owner.json"), "utf8"));
    return typeof owner?.pid === "number" ? owner.pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The event to kill run `cli` at, drawn with `rand` before the run writes anything: one time in
 * four its lock taken (its owner record written), else the partial data grown by 1 byte to
 * 192 KiB over what is on disk now (the first or second batch the run writes).
 */
function killPoint(
  dir: string,
  rand: () => number,
): { name: string; reached: (cli: LaunchedCli) => boolean } {
  if (rand() < 0.25) {
    return { name: "lock", reached: (cli) => lockOwnerPid(dir) === cli.child.pid };
  }
  const at = partialBytes(dir) + 1 + Math.floor(rand() * 192 * 1024);
  return { name: `${at} B`, reached: () => partialBytes(dir) >= at };
}

describe("SIGKILL at random points", () => {
  it(`${KILLS} kills and re-runs end byte-identical; the final path never holds a partial file`, async () => {
    const seed = Number(process.env.RELIABILITY_SEED) || Date.now() % 1_000_000;
    console.log(`kill test seed: ${seed} (replay with RELIABILITY_SEED=${seed})`);
    const rand = prng(seed);
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    mock.set({ faults: { throttleBytesPerSecond: THROTTLE } });
    const dir = tempDir();
    const env = envFor(mock);
    const stop = guardFinalPath(dir, info.filename, info.sha256);
    const points: string[] = [];
    let kills = 0;
    try {
      for (let i = 0; kills < KILLS && i < KILLS * 2; i++) {
        const point = killPoint(dir, rand);
        points.push(point.name);
        const cli: LaunchedCli = launchCli(["pack", "get", SLUG, "--json"], { env, cwd: dir });
        const exited = await whenInDir(join(dir, ".svc-dl"), () => point.reached(cli), {
          what: point.name,
          until: cli.done,
        }).then(
          () => false,
          () => true,
        );
        if (!exited) {
          cli.child.kill("SIGKILL");
          kills += 1;
        }
        const result = await cli.done;
        if (exited) {
          // it finished (or refused) on its own: only success is acceptable
          expect(result.code, `seed ${seed}: ${result.stderr}`).toBe(0);
        } else {
          expect(result.signal).toBe("SIGKILL");
        }
        const problem = finalPathProblem(dir, [info.sha256]);
        expect(problem, `seed ${seed}, kill ${kills} at ${point.name}`).toBeUndefined();
      }
      expect(kills).toBe(KILLS);
      const kept = partFiles(dir)[0]?.bytes ?? 0;
      console.log(`kill points: ${points.join(", ")}; ${kept} bytes kept`);
      mock.set({ faults: {} });
      const last = await run(["pack", "get", SLUG, "--json"], { env, cwd: dir });
      expect(last.code, `seed ${seed}: ${last.stderr}`).toBe(0);
      expect(last.doc?.sha256).toBe(info.sha256);
      expect(finalFiles(dir)).toEqual([info.filename]);
      expect(partFiles(dir)).toEqual([]);
      if (kept > 0) expect(last.doc?.resumed_from, `seed ${seed}`).toBeGreaterThan(0);
      expect(finalPathProblem(dir, [info.sha256])).toBeUndefined();
    } finally {
      const violations = stop();
      expect(violations, `seed ${seed}, kill points ${points.join(", ")}`).toEqual([]);
    }
  }, 90_000);

  it("a kill the moment the file is renamed into place: the re-run owns it (no file_exists, no lock left)", async () => {
    mock.set({ faults: {} });
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const env = envFor(mock);
    for (let i = 0; i < 3; i++) {
      const dir = tempDir();
      const cli = launchCli(["pack", "get", SLUG], { env, cwd: dir });
      const watcher = watch(dir, (_event, file) => {
        if (file === info.filename) cli.child.kill("SIGKILL");
      });
      await cli.done;
      watcher.close();
      const again = await run(["pack", "get", SLUG, "--json"], { env, cwd: dir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.doc?.sha256).toBe(info.sha256);
      expect(finalFiles(dir)).toEqual([info.filename]);
      expect(finalPathProblem(dir, [info.sha256])).toBeUndefined();
    }
  });
});
