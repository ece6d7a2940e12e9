import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { install, makeProject } from "../helpers/install.js";

/**
 * Every file svc-dl writes outside its own `.svc-dl/` (cli-contract "Operating unattended":
 * --report, --metrics, the step summary; svc-dl.lock) is a regular file or nothing: a FIFO, a
 * device node, a symlink or a directory at the path is refused with exit 8 and left as it was,
 * and a file that cannot be written fails a run that had succeeded.
 */

let mock: MockService;
let env: Record<string, string>;

beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 4 * 1024, assetSize: 2 * 1024 });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
});
afterAll(async () => {
  await mock.close();
});

/** Bytes waiting in the FIFO for the reader `fd` (0 when nothing was written). */
function pending(fd: number): number {
  try {
    return readSync(fd, Buffer.alloc(1 << 16), 0, 1 << 16, null);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EAGAIN") return 0;
    throw err;
  }
}

/** A FIFO in a fresh folder with a reader waiting on it (so an open for writing would succeed). */
function fifoWithReader(): { path: string; reader: number } {
  const path = join(tempDir(), "out.fifo");
  execFileSync("mkfifo", [path]);
  return { path, reader: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK) };
}

describe("files outside .svc-dl/: a regular file or nothing", () => {
  it("--report at a FIFO: refused, exit 8, nothing fed to its reader; the hint's step works", async () => {
    const fifo = fifoWithReader();
    try {
      const r = await runCli(["packs", "sync", tempDir(), "--report", fifo.path], { env });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/refusing to write the --report file .*out\.fifo: it is a FIFO/);
      expect(r.stderr).toContain("(code unsafe_output_path)");
      expect(r.stderr).toContain("hint: Move what is at that path away");
      expect(pending(fifo.reader)).toBe(0);
      expect(lstatSync(fifo.path).isFIFO()).toBe(true);
    } finally {
      closeSync(fifo.reader);
    }
    // the hint, followed: the FIFO moved away, the same command succeeds and writes the file
    rmSync(fifo.path);
    const again = await runCli(["packs", "sync", tempDir(), "--report", fifo.path], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(fifo.path, "utf8")).complete).toBe(true);
  }, 90_000); // two whole syncs, the first one loading every module

  it("--metrics at a device node (mknod): refused, exit 8, still the device", async () => {
    const dev = join(tempDir(), "null");
    execFileSync("mknod", [dev, "c", "1", "3"]);
    const r = await runCli(["packs", "sync", tempDir(), "--json", "--metrics", dev], { env });
    expect(r.code).toBe(8);
    expect(JSON.parse(r.stdout).complete).toBe(true); // the run's own outcome is printed
    const err = JSON.parse(r.stderr.trim()).error;
    expect(err.code).toBe("unsafe_output_path");
    expect(err.message).toContain("it is a device node");
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it("--report at a directory: refused, exit 8, the directory untouched", async () => {
    const out = join(tempDir(), "report");
    mkdirSync(out);
    const r = await runCli(["packs", "sync", tempDir(), "--report", out], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/it is a directory.*\(code unsafe_output_path\)/);
    expect(readdirSync(out)).toEqual([]);
  });

  it("GITHUB_STEP_SUMMARY at a FIFO: refused, exit 8, no byte appended through it", async () => {
    const fifo = fifoWithReader();
    try {
      const r = await runCli(["packs", "sync", tempDir()], {
        env: { ...env, GITHUB_STEP_SUMMARY: fifo.path },
      });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/the GITHUB_STEP_SUMMARY file .*: it is a FIFO/);
      expect(pending(fifo.reader)).toBe(0);
    } finally {
      closeSync(fifo.reader);
    }
  });

  it("a run that failed keeps its own exit code; the refused file is a warning", async () => {
    const out = tempDir();
    const victim = join(out, "victim");
    writeFileSync(victim, "keep\n");
    const report = join(out, "r.json");
    symlinkSync(victim, report);
    const r = await runCli(["packs", "sync", tempDir(), "--report", report], {
      env: { ...env, SVC_API_KEY: mock.keys.key_revoked ?? "" },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/warning: refusing to write the --report file .*symbolic link/);
    expect(r.stderr).toContain("code revoked_api_key");
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
  });

  it("the metrics of a run whose report failed say exit 8 and keep the last success", async () => {
    const out = tempDir();
    const dir = tempDir();
    const metrics = join(out, "svc-dl.prom");
    const first = await runCli(["packs", "sync", dir, "--metrics", metrics], { env });
    expect(first.code).toBe(0);
    const lastSuccess = /svc_dl_last_success_timestamp_seconds\{[^}]*\} (\S+)/.exec(
      readFileSync(metrics, "utf8"),
    )?.[1];
    expect(lastSuccess).toBeDefined();
    const report = join(out, "r.json");
    mkdirSync(report);
    const r = await runCli(["packs", "sync", dir, "--report", report, "--metrics", metrics], {
      env,
    });
    expect(r.code).toBe(8);
    const text = readFileSync(metrics, "utf8");
    expect(text).toMatch(/svc_dl_exit_code\{[^}]*\} 8\n/);
    expect(text).toContain(`} ${lastSuccess}\n`);
  });

  it("svc-dl.lock at a device node: install refuses it (exit 8) and leaves it a device", async () => {
    const project = makeProject();
    const lock = join(project.root, "svc-dl.lock");
    execFileSync("mknod", [lock, "c", "1", "3"]);
    const r = await install(mock, project);
    expect(r.code).toBe(8);
    expect(JSON.parse(r.stderr.trim().split("\n").pop() ?? "").error.code).toBe(
      "unsafe_output_path",
    );
    expect(lstatSync(lock).isCharacterDevice()).toBe(true);
    expect(existsSync(join(project.root, "vendor"))).toBe(false);
  });
});
