/**
 * The `svc-dl-mock` command: compiles src/mock-server into a temporary tree
 * laid out like the package (bin/, dist/mock-server/, fixtures/), spawns the
 * real bin shim, and checks the two stdout lines, serving, and SIGTERM/SIGINT.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/mock-server/cli.js";

const repo = resolve(import.meta.dirname, "../..");
const VERSION = "9.8.7-test";
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "svc-dl-mock-cli-"));
  execFileSync(
    process.execPath,
    [
      join(repo, "node_modules/typescript/bin/tsc"),
      "--outDir",
      join(root, "dist"),
      "--rootDir",
      join(repo, "src"),
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2023",
      "--types",
      "node",
      "--skipLibCheck",
      join(repo, "src/mock-server/cli.ts"),
    ],
    { stdio: "pipe" },
  );
  mkdirSync(join(root, "bin"));
  mkdirSync(join(root, "fixtures"));
  copyFileSync(join(repo, "bin/svc-dl-mock.js"), join(root, "bin/svc-dl-mock.js"));
  copyFileSync(join(repo, "fixtures/default.json"), join(root, "fixtures/default.json"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module", version: VERSION }));
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  /** Resolves once `cond` holds, re-checked on each output; rejects if the process exits first. */
  when: (cond: () => boolean) => Promise<void>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, [join(root, "bin/svc-dl-mock.js"), ...args], {
    stdio: "pipe",
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const output = (): void => {
    for (const w of waiters) w();
  };
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    output();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
    output();
  });
  const exit = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  // after "close" no more output can come
  const closed = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  const when = (cond: () => boolean): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!cond()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
      void closed.then((code) => {
        check();
        if (waiters.delete(check)) reject(new Error(`svc-dl-mock exited (${code}) first`));
      });
    });
  return { child, stdout: () => out, stderr: () => err, exit, when };
}

describe("svc-dl-mock CLI", () => {
  it("prints exactly two lines to stdout, serves, and exits 0 on SIGTERM", async () => {
    const run = start(["--read-quota", "5", "--window", "7"]);
    await run.when(() => run.stdout().split("\n").length >= 3);
    const lines = run.stdout().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(lines[0]).toMatch(/^SVC_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toMatch(/^SVC_API_KEY=svc_live_[A-Za-z0-9]{32}_[0-9a-f]{8}$/);
    const base = lines[0]?.slice("SVC_BASE_URL=".length) ?? "";
    const key = lines[1]?.slice("SVC_API_KEY=".length) ?? "";
    const r = await fetch(`${base}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-policy")).toBe('"read";q=5;w=7');
    await r.arrayBuffer();
    expect(run.stderr()).toContain("SVC_LICENSE_KEY=SVC_");
    // the banner names the fixture by a path that works from any directory
    await run.when(() => run.stderr().includes("(see "));
    const shown = /\(see (.+)\)\n/.exec(run.stderr())?.[1] ?? "";
    expect(shown).toBe(join(root, "fixtures/default.json"));
    expect(readFileSync(shown, "utf8")).toContain('"demo"');
    run.child.kill("SIGTERM");
    expect(await run.exit).toBe(0);
    expect(run.stdout().split("\n")).toHaveLength(3);
  });

  it("--port, --fixture, --pack-size, --extra-packs and SIGINT", async () => {
    const fx = JSON.parse(readFileSync(join(repo, "fixtures/default.json"), "utf8")) as {
      packs: unknown[];
    };
    const file = join(root, "custom.json");
    writeFileSync(file, JSON.stringify(fx));
    const run = start([
      "--port",
      "0",
      "--fixture",
      file,
      "--pack-size",
      "4096",
      "--extra-packs",
      "3",
      "--log",
    ]);
    await run.when(() => run.stdout().split("\n").length >= 3);
    const [b, k] = run.stdout().split("\n");
    const base = b?.slice(13) ?? "";
    const key = k?.slice(12) ?? "";
    const r = await fetch(`${base}/api/v1/packs/bench-pack-002/download`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(r.status).toBe(200);
    expect((await r.arrayBuffer()).byteLength).toBe(4096);
    await run.when(() => run.stderr().includes("cdn GET"));
    expect(run.stderr()).toContain(`(see ${file})`);
    run.child.kill("SIGINT");
    expect(await run.exit).toBe(0);
  });

  it("--version and -V print the package's version and exit 0", async () => {
    for (const flag of ["--version", "-V"]) {
      const run = start([flag]);
      expect(await run.exit).toBe(0);
      expect(run.stdout()).toBe(`${VERSION}\n`);
      expect(run.stderr()).toBe("");
    }
  });

  it("--help explains the flags with an example; bad flags exit 2", async () => {
    const help = start(["--help"]);
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toContain("--download-quota");
    expect(help.stdout()).toContain("Example");
    const bad = start(["--port", "abc"]);
    expect(await bad.exit).toBe(2);
    expect(bad.stdout()).toBe("");
    expect(bad.stderr()).toContain("--port");
  });

  it("parseCliArgs maps the flags to options", () => {
    const { options } = parseCliArgs([
      "--window",
      "2",
      "--download-quota",
      "4",
      "--auth-quota",
      "3",
      "--no-if-none-match",
      "--cdn-port",
      "0",
    ]);
    expect(options.limits).toEqual({
      read: { quota: 120, windowSeconds: 2 },
      download: { quota: 4, windowSeconds: 2 },
      public: { quota: 120, windowSeconds: 2 },
      auth: { quota: 3, windowSeconds: 2 },
    });
    expect(options.ifNoneMatch).toBe(false);
    expect(options.cdnPort).toBe(0);
  });
});
