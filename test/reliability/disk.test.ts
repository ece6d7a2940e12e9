/**
 * the local file system fails. Unwritable output directories
 * (made so in ways that hold for root too: a path under a regular file, `.svc-dl` taken by a
 * file, a read-only tmpfs) and a full disk (a small tmpfs when this machine allows mounting, and
 * always an injected ENOSPC) each end with exit 8 and the right code, keep any partial data, and
 * a later run with room resumes to the identical file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import {
  ENOSPC_PRELOAD,
  IS_ROOT,
  mountTmpfs,
  pathUnderAFile,
  readOnlyDir,
} from "../helpers/mounts.js";
import {
  envFor,
  finalFiles,
  finalPathProblem,
  listTree,
  partFiles,
  run,
  tempDir,
} from "./helpers/harness.js";

const SIZE = 1024 * 1024;
const SLUG = "sci-fi-props";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({
    packSize: SIZE,
    assetSize: 32 * 1024,
    limits: {
      download: { quota: 1000, windowSeconds: 60 },
      read: { quota: 1000, windowSeconds: 60 },
    },
  });
});
afterAll(async () => {
  await mock.close();
});

function downloads(since: number): number {
  return mock.requests.slice(since).filter((q) => q.url.includes("/download")).length;
}

describe("unwritable output directories → exit 8, no download request", () => {
  it("-o under a regular file, -o naming a regular file as a directory, .svc-dl taken by a file", async () => {
    const env = envFor(mock);
    const under = pathUnderAFile();
    const cases: { args: string[]; cwd: string; code: string }[] = [
      {
        args: ["asset", "get", "forest-pine-tree", "-o", `${under.path}/`],
        cwd: tempDir(),
        code: "write_failed",
      },
      { args: ["pack", "get", SLUG, "-o", `${under.file}/`], cwd: tempDir(), code: "write_failed" },
      { args: ["packs", "sync", under.path], cwd: tempDir(), code: "write_failed" },
    ];
    const taken = tempDir();
    writeFileSync(join(taken, ".svc-dl"), "a file where svc-dl keeps its bookkeeping\n");
    cases.push({ args: ["asset", "get", "forest-pine-tree"], cwd: taken, code: "write_failed" });
    for (const c of cases) {
      const before = mock.requests.length;
      const r = await run([...c.args, "--json"], { env, cwd: c.cwd });
      expect(r.code, `${c.args.join(" ")}: ${r.stderr}`).toBe(8);
      expect(r.error?.code).toBe(c.code);
      expect(r.error?.message).toMatch(/cannot (create|lock)/);
      expect(downloads(before)).toBe(0);
    }
    expect(readFileSync(under.file, "utf8")).toBe("not a directory\n");
    expect(readFileSync(join(taken, ".svc-dl"), "utf8")).toContain("bookkeeping");
  });

  it("a read-only directory (read-only tmpfs, or chmod 0555 when not root) → permission_denied", async () => {
    const ro = readOnlyDir();
    const env = envFor(mock);
    if (!ro) {
      // root without mount rights: modes do not stop root, and no read-only mount is possible
      console.log(
        "read-only directory: not available here (root, no mount); used a path under a file",
      );
      const under = pathUnderAFile();
      const r = await run(["asset", "get", "forest-pine-tree", "-o", `${under.path}/`, "--json"], {
        env,
        cwd: tempDir(),
      });
      expect(r.code).toBe(8);
      return;
    }
    try {
      console.log(`read-only directory via ${ro.how} (root: ${IS_ROOT})`);
      for (const args of [
        ["asset", "get", "forest-pine-tree", "-o", `${ro.dir}/`],
        ["pack", "get", SLUG, "-o", join(ro.dir, "exact-name.zip")],
        ["packs", "sync", ro.dir],
      ]) {
        const before = mock.requests.length;
        const r = await run([...args, "--json"], { env, cwd: tempDir() });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(8);
        expect(r.error?.code).toBe("permission_denied");
        expect(downloads(before)).toBe(0);
        expect(listTree(ro.dir)).toEqual([]);
      }
    } finally {
      ro.cleanup();
    }
  });

  it("a directory that turns read-only after a partial download keeps the part; writable again, it resumes", async () => {
    const fs = mountTmpfs("8m");
    const env = envFor(mock);
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    if (!fs) {
      console.log(
        "read-only after partial: no tmpfs here; covered by the injected ENOSPC test instead",
      );
      return;
    }
    try {
      // a first run that stops with partial data (the disk "fills" after 300 000 bytes)
      const first = await run(["pack", "get", SLUG, "--json"], {
        env: { ...env, NODE_OPTIONS: ENOSPC_PRELOAD, RELIABILITY_ENOSPC_AFTER: "300000" },
        cwd: fs.dir,
      });
      expect(first.code, first.stderr).toBe(8);
      const kept = partFiles(fs.dir)[0]?.bytes ?? 0;
      expect(kept).toBeGreaterThan(0);
      expect(fs.remount("ro")).toBe(true);
      const refused = await run(["pack", "get", SLUG, "--json"], { env, cwd: fs.dir });
      expect(refused.code, refused.stderr).toBe(8);
      expect(refused.error?.code).toBe("permission_denied");
      expect(partFiles(fs.dir)[0]?.bytes).toBe(kept);
      expect(fs.remount("rw")).toBe(true);
      const resumed = await run(["pack", "get", SLUG, "--json"], { env, cwd: fs.dir });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.doc?.status).toBe("resumed");
      expect(resumed.doc?.resumed_from).toBe(kept);
      expect(resumed.doc?.sha256).toBe(info.sha256);
      expect(finalPathProblem(fs.dir, [info.sha256])).toBeUndefined();
    } finally {
      fs.unmount();
    }
  });
});

describe("a full disk → exit 8 no_space, partial data kept, a later run with room resumes", () => {
  /** Checks a no_space failure, then resumes in `dir` with `roomEnv` and checks the result. */
  async function failThenResume(
    dir: string,
    fullEnv: Record<string, string>,
    roomEnv: Record<string, string>,
    makeRoom: () => void,
  ) {
    const info = await mock.fileInfo({ kind: "pack", slug: SLUG });
    const full = await run(["pack", "get", SLUG, "--json"], { env: fullEnv, cwd: dir });
    expect(full.code, full.stderr).toBe(8);
    expect(full.error?.code).toBe("no_space");
    expect(full.error?.hint).toContain("partial data is kept");
    expect(finalFiles(dir)).toEqual([]);
    const kept = partFiles(dir)[0]?.bytes ?? 0;
    // the hint says how much room there was, and how much of the file it took
    expect(full.error?.hint).toMatch(
      /\(the disk had \d[\d.]* (B|KiB|MiB|GiB|TiB) free (after \d[\d.]* (B|KiB) of|before any of) the file was written\)/,
    );
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(SIZE);
    // a sync into the full directory stops at once with the same code
    const sync = await run(["packs", "sync", ".", "--json"], { env: fullEnv, cwd: dir });
    expect(sync.code, sync.stderr).toBe(8);
    expect(sync.error?.code).toBe("no_space");
    expect(partFiles(dir).find((p) => p.name.includes(SLUG))?.bytes).toBe(kept);
    makeRoom();
    const resumed = await run(["pack", "get", SLUG, "--json"], { env: roomEnv, cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.doc?.status).toBe("resumed");
    expect(resumed.doc?.resumed_from).toBe(kept);
    expect(resumed.doc?.sha256).toBe(info.sha256);
    expect(finalPathProblem(dir, [info.sha256])).toBeUndefined();
  }

  it("a small tmpfs (or, where mounting is not allowed, injected ENOSPC)", async () => {
    const env = envFor(mock);
    const fs = mountTmpfs("400k");
    if (!fs) {
      console.log("full disk: tmpfs not mountable here; using injected ENOSPC");
      const dir = tempDir();
      await failThenResume(
        dir,
        { ...env, NODE_OPTIONS: ENOSPC_PRELOAD, RELIABILITY_ENOSPC_AFTER: "350000" },
        env,
        () => undefined,
      );
      return;
    }
    try {
      const dir = join(fs.dir, "assets");
      mkdirSync(dir);
      await failThenResume(dir, env, env, () => {
        expect(fs.remount("size=4m")).toBe(true);
      });
    } finally {
      fs.unmount();
    }
  });

  it("a write that returns 0 bytes without an error fails with exit 8 (no spinning); the part is kept", async () => {
    const env = envFor(mock);
    const dir = tempDir();
    const r = await run(["pack", "get", SLUG, "--json"], {
      env: {
        ...env,
        NODE_OPTIONS: ENOSPC_PRELOAD,
        RELIABILITY_ENOSPC_AFTER: "300000",
        RELIABILITY_ENOSPC_ZERO: "1",
      },
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.error?.code).toBe("write_failed");
    expect(finalFiles(dir)).toEqual([]);
    expect(partFiles(dir)[0]?.bytes ?? 0).toBeGreaterThan(0);
  });

  it("injected ENOSPC (works everywhere)", async () => {
    const env = envFor(mock);
    const dir = tempDir();
    await failThenResume(
      dir,
      { ...env, NODE_OPTIONS: ENOSPC_PRELOAD, RELIABILITY_ENOSPC_AFTER: "300000" },
      env,
      () => undefined,
    );
    expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);
  });
});
