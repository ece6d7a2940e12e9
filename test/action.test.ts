import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { startMockService } from "../src/mock-server/index.js";
import type { MockService } from "../src/mock-server/types.js";
import { assertNoSecrets, cleanEnv, registerSecret } from "./helpers/cli.js";
import { install, makeProject } from "./helpers/install.js";

/**
 * The composite action (action.yml; cli-contract "Credentials, schedules and offline runs", the
 * action): its step scripts run as a runner runs them, with GITHUB_OUTPUT, GITHUB_ENV,
 * GITHUB_STEP_SUMMARY and RUNNER_TEMP set to temp files, against the mock service; actions/cache
 * is played by copying exactly the paths action.yml gives it. The build step (npm ci from the
 * registry) is measured in docs/cron-and-ci.md, not run here: the suite's build stands in for it.
 */

/** Written before `{{` where a test names a GitHub expression (`${DOLLAR}{{ … }}`). */
const DOLLAR = "$";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const YML = readFileSync(join(ROOT, "action.yml"), "utf8");
let mock: MockService;

beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 8 * 1024 });
  registerSecret(mock.apiKey);
});
afterAll(async () => {
  await mock.close();
});

/** A runner's view of one job: its workspace, RUNNER_TEMP and GitHub file commands. */
interface Job {
  workspace: string;
  temp: string;
  files: { GITHUB_OUTPUT: string; GITHUB_ENV: string; GITHUB_STEP_SUMMARY: string };
}

function newJob(workspace: string): Job {
  const temp = mkdtempSync(join(tmpdir(), "svc-dl-runner-"));
  const files = {
    GITHUB_OUTPUT: join(temp, "output"),
    GITHUB_ENV: join(temp, "env"),
    GITHUB_STEP_SUMMARY: join(temp, "summary.md"),
  };
  for (const f of Object.values(files)) writeFileSync(f, "");
  return { workspace, temp, files };
}

function runScript(
  job: Job,
  name: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [join(ROOT, "scripts", "action", name)], {
      cwd: job.workspace,
      env: cleanEnv({
        ...job.files,
        RUNNER_TEMP: job.temp,
        RUNNER_OS: "Linux",
        RUNNER_ARCH: "X64",
        GITHUB_WORKSPACE: job.workspace,
        ...keyValues(job.files.GITHUB_ENV), // what earlier steps exported
        ...env,
        SVC_DL_ACTION_PATH: ROOT,
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, out }));
  });
}

/** `key=value` lines of a GITHUB_OUTPUT / GITHUB_ENV file (the last value of a key wins). */
function keyValues(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** The `path:` lines action.yml gives actions/cache for the download cache, with `dir` filled in. */
function cachedPaths(cacheDir: string): string[] {
  const step = ActionSchema.parse(parseYaml(YML)).runs.steps.find((s) => s.id === "files");
  const paths = step && "with" in step ? (step.with?.path ?? "") : "";
  return paths
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.trim().replace(`${DOLLAR}{{ steps.setup.outputs.cache-dir }}`, cacheDir));
}

/** What actions/cache/save then /restore carry over: exactly `paths`, into a new job. */
function carryCache(paths: readonly string[], from: string, to: string): void {
  for (const p of paths) {
    if (existsSync(p)) cpSync(p, p.replace(from, to), { recursive: true });
  }
}

/** A fresh checkout of the project's commit: its manifest and lock, no downloaded file. */
function checkoutOf(root: string): string {
  const checkout = mkdtempSync(join(tmpdir(), "svc-dl-checkout-"));
  for (const f of ["svc-dl.json", "svc-dl.lock"]) cpSync(join(root, f), join(checkout, f));
  return checkout;
}

/** Runs the action's steps after the build, as action.yml orders them, for `job`. */
async function runAction(job: Job, inputs: Record<string, string | undefined>, carry?: string) {
  const setup = await runScript(job, "setup.sh", { INPUT_MANIFEST: "svc-dl.json" });
  expect(setup.code, setup.out).toBe(0);
  const step = keyValues(job.files.GITHUB_OUTPUT);
  const cacheDir = step["cache-dir"] ?? "";
  if (carry) carryCache(cachedPaths(carry), carry, cacheDir);
  const before = mock.requests.length;
  const run = await runScript(job, "install.sh", {
    INPUT_MANIFEST: "svc-dl.json",
    INPUT_LOCK: step.lock,
    INPUT_FROZEN: "true",
    INPUT_CACHE: "true",
    INPUT_BASE_URL: mock.baseUrl,
    ...inputs,
  });
  const requests = mock.requests.length - before;
  return { run, requests, cacheDir, outputs: () => keyValues(job.files.GITHUB_OUTPUT) };
}

describe("the action's steps, as a runner runs them", () => {
  it("a cold run downloads, the prune keeps only what the lock names, and a warm run makes zero requests without a key", async () => {
    const project = makeProject();
    expect((await install(mock, project)).code).toBe(0); // writes svc-dl.lock (another cache)
    const lock = JSON.parse(readFileSync(join(project.root, "svc-dl.lock"), "utf8"));
    const n = lock.items.length as number;

    const cold = newJob(checkoutOf(project.root));
    const first = await runAction(cold, { SVC_API_KEY: mock.apiKey });
    expect(first.run.code, first.run.out).toBe(0);
    assertNoSecrets(first.run.out, "the action's log");
    expect(first.requests).toBeGreaterThan(0);
    const out1 = first.outputs();
    expect(out1.lock).toBe("svc-dl.lock");
    expect(out1["build-key"]).toMatch(/^svc-dl-build-Linux-X64-node(v\d+\.\d+\.\d+)-[0-9a-f]{64}$/);
    expect(keyValues(cold.files.GITHUB_ENV).SVC_DL_CACHE_DIR).toBe(first.cacheDir);
    expect(out1.report).toBe(join(realpathSync(cold.workspace), "svc-dl-report.json"));
    expect([out1.downloaded, out1.cached, out1.failed]).toEqual([String(n), "0", "0"]);
    expect(readFileSync(cold.files.GITHUB_STEP_SUMMARY, "utf8")).toContain(
      "### svc-dl install: exit 0",
    );

    // another project's file in the same cache: the prune before the save removes it
    const other = makeProject({ dir: "out", packs: ["desert-rocks"] });
    other.cache = first.cacheDir;
    expect((await install(mock, other)).code).toBe(0);
    const entries = () => readdirSync(join(first.cacheDir, "sha256"), { recursive: true });
    const withOther = entries().length;
    const prune = await runScript(cold, "prune.sh", { INPUT_LOCK: "svc-dl.lock" });
    expect(prune.code, prune.out).toBe(0);
    expect(prune.out).toContain("removed 1 cached file");
    expect(entries().length).toBeLessThan(withOther);

    // a fresh checkout of the same commit: the lock and the manifest, no files
    const checkout = mkdtempSync(join(tmpdir(), "svc-dl-checkout-"));
    for (const f of ["svc-dl.json", "svc-dl.lock"])
      cpSync(join(project.root, f), join(checkout, f));
    const warm = newJob(checkout);
    const second = await runAction(warm, { SVC_API_KEY: undefined }, first.cacheDir);
    expect(second.run.code, second.run.out).toBe(0);
    expect(second.requests).toBe(0);
    expect(second.outputs().cached).toBe(String(n));
    expect(second.outputs().downloaded).toBe("0");
    expect(readdirSync(join(checkout, "vendor", "assets")).length).toBeGreaterThanOrEqual(n);
  }, 120_000); // four runs of the CLI in child processes

  it("a lock mismatch fails the step with an ::error annotation on the lock, the count, and the item named in the step summary", async () => {
    const project = makeProject();
    expect((await install(mock, project)).code).toBe(0);
    const lockPath = join(project.root, "svc-dl.lock");
    const lock = JSON.parse(readFileSync(lockPath, "utf8"));
    lock.items[0].sha256 = "0".repeat(64);
    writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    const job = newJob(project.root);
    const { run, outputs } = await runAction(job, { SVC_API_KEY: mock.apiKey });
    expect(run.code).toBe(9);
    const slug = lock.items[0].slug as string;
    expect(run.stdout).toMatch(
      new RegExp(`^::error file=svc-dl\\.lock,title=svc-dl lock_mismatch::\\w+ ${slug}`, "m"),
    );
    expect(outputs().failed).toBe("1");
    const summary = readFileSync(job.files.GITHUB_STEP_SUMMARY, "utf8");
    expect(summary).toMatch(
      new RegExp(`\\| ${slug.replace(/-/g, "\\\\-")} \\| lock\\\\_mismatch \\|`),
    );
    expect(JSON.parse(readFileSync(outputs().report ?? "", "utf8")).complete).toBeDefined();
  });

  it("a frozen install without a lock still writes the report and fails the step", async () => {
    const project = makeProject(); // no svc-dl.lock: --frozen is exit 9
    const job = newJob(project.root);
    const { run, outputs } = await runAction(job, { SVC_API_KEY: mock.apiKey });
    expect(run.code).toBe(9);
    expect(run.stdout).toContain("::error file=svc-dl.lock,");
    const doc = JSON.parse(readFileSync(outputs().report ?? "", "utf8"));
    expect(doc.items.every((i: { status: string }) => i.status !== "downloaded")).toBe(true);
  });

  it("refuses a value with a line break for GITHUB_OUTPUT or GITHUB_ENV: no line is added", async () => {
    const project = makeProject();
    const job = newJob(project.root);
    const env = await runScript(job, "setup.sh", {
      SVC_DL_CACHE_DIR: "/tmp/x\nNODE_OPTIONS=--inspect",
    });
    expect(env.code).not.toBe(0);
    expect(env.out).toContain("refusing to set cache-dir: its value holds a line break");
    expect(readFileSync(job.files.GITHUB_ENV, "utf8")).toBe("");
    const report = await runScript(job, "install.sh", { INPUT_REPORT: "r.json\nfailed=0" });
    expect(report.code).not.toBe(0);
    expect(readFileSync(job.files.GITHUB_OUTPUT, "utf8")).not.toContain("failed=0");
    expect(existsSync(join(project.root, "vendor"))).toBe(false); // svc-dl never ran
  });
});

describe("outputs.js: annotations escaped by GitHub's workflow-command rules", () => {
  it("a hostile slug or message can neither end the command nor start another", async () => {
    const { actionOutputs, escapeProperty } = await import("../scripts/action/outputs.js");
    const doc = {
      summary: { downloaded: 2, from_cache: 1 },
      items: [
        {
          kind: "pack",
          slug: "evil\n::warning::x",
          edition: "standard",
          status: "failed",
          error: { code: "not_found", message: "100% gone,\r\nreally: yes" },
        },
        { kind: "asset", slug: "ok", edition: null, status: "downloaded", error: null },
      ],
    };
    const { outputs, annotations } = actionOutputs(doc, { lock: "a,b:c.lock", manifest: "m.json" });
    expect(outputs).toEqual({ downloaded: 2, cached: 1, failed: 1 });
    expect(annotations).toEqual([
      "::error file=m.json,title=svc-dl not_found::pack evil%0A::warning::x (standard): 100%25 gone,%0D%0Areally: yes",
    ]);
    expect(escapeProperty("a,b:c%\n")).toBe("a%2Cb%3Ac%25%0A");
    const missing = actionOutputs(undefined, { lock: "l", manifest: "m" });
    expect(missing.outputs).toEqual({ downloaded: 0, cached: 0, failed: 0 });
    expect(missing.annotations).toHaveLength(1);
  });
});

describe("build-tools.js: the build installs what it bundles and esbuild, no dev tool", () => {
  it("keeps the lock's entries (integrity included) that the build's dependencies reach, and no test, lint or type tool", async () => {
    const { buildToolsProject } = await import("../scripts/action/build-tools.js");
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    const { manifest, lockfile } = buildToolsProject(lock);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    for (const name of [...Object.keys(pkg.dependencies), "esbuild", "commander"]) {
      expect(manifest.dependencies[name], name).toBeDefined();
    }
    const paths = Object.keys(lockfile.packages).filter((p) => p !== "");
    for (const tool of ["vitest", "typescript", "@biomejs/biome", "@types/node", "yaml"]) {
      expect(paths).not.toContain(`node_modules/${tool}`);
    }
    expect(paths.length).toBeLessThan(Object.keys(lock.packages).length / 2);
    for (const p of paths) {
      expect(lockfile.packages[p]?.integrity, p).toBe(lock.packages[p].integrity);
      expect(lockfile.packages[p]?.dev).toBeUndefined();
    }
  });
});

/** The action metadata syntax (docs.github.com "Metadata syntax for GitHub Actions"), composite. */
const ActionSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  inputs: z.record(
    z.string().regex(/^[a-z][a-z0-9-]*$/),
    z.strictObject({
      description: z.string().min(1),
      required: z.boolean(),
      default: z.string().optional(),
    }),
  ),
  outputs: z.record(
    z.string(),
    z.strictObject({ description: z.string().min(1), value: z.string().min(1) }),
  ),
  runs: z.strictObject({
    using: z.literal("composite"),
    steps: z.array(
      z.union([
        z.strictObject({
          name: z.string().min(1),
          id: z.string().optional(),
          if: z.string().optional(),
          shell: z.literal("bash"),
          env: z.record(z.string(), z.string()).optional(),
          run: z.string().min(1),
        }),
        z.strictObject({
          name: z.string().min(1),
          id: z.string().optional(),
          if: z.string().optional(),
          uses: z.string().min(1),
          with: z.record(z.string(), z.string()).optional(),
        }),
      ]),
    ),
  }),
});

describe("action.yml", () => {
  const action = ActionSchema.parse(parseYaml(YML));
  const steps = action.runs.steps;

  it("is valid action metadata with the contract's outputs", () => {
    expect(Object.keys(action.outputs).sort()).toEqual(
      ["cache-hit", "cached", "downloaded", "failed", "report"].sort(),
    );
    const ids = new Set(steps.map((s) => s.id).filter(Boolean));
    for (const { value } of Object.values(action.outputs)) {
      const id = /steps\.([a-z-]+)\.outputs/.exec(value)?.[1];
      expect(ids.has(id), value).toBe(true);
    }
  });

  it("passes inputs and paths to scripts only through env:, the key only as SVC_API_KEY", () => {
    for (const s of steps) if ("run" in s) expect(s.run, s.name).not.toContain(`${DOLLAR}{{`);
    expect(YML.match(/inputs\.api-key/g)).toHaveLength(1);
    const install = steps.find((s) => s.id === "install");
    expect(install && "env" in install ? install.env?.SVC_API_KEY : "").toBe(
      `${DOLLAR}{{ inputs.api-key }}`,
    );
    expect(YML).not.toMatch(/npx|npm install -g|npm exec/);
  });

  it("pins every action by commit SHA with its tag in a comment", () => {
    const uses = YML.split("\n").filter((l) => /^\s*(- )?uses:/.test(l));
    expect(uses.length).toBeGreaterThanOrEqual(4);
    for (const line of uses) {
      expect(line).toMatch(/uses: [\w-]+\/[\w-]+(\/[\w-]+)?@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    }
  });

  it("caches the files with restore and save keyed on hashFiles() of the lock, pruned between, and no code", () => {
    const byUse = (u: string) => steps.filter((s) => "uses" in s && s.uses.startsWith(u));
    const [restore] = byUse("actions/cache/restore@").filter((s) => s.id === "files");
    const [save] = byUse("actions/cache/save@").filter(
      (s) => "with" in s && s.with?.path?.includes("cache-dir"),
    );
    const key = `svc-dl-files-${DOLLAR}{{ runner.os }}-${DOLLAR}{{ hashFiles(steps.setup.outputs.lock) }}`;
    expect(restore && "with" in restore ? restore.with?.key : "").toBe(key);
    expect(save && "with" in save ? save.with?.key : "").toBe(key);
    const names = steps.map((s) => s.name);
    const pruneAt = steps.findIndex((s) => "run" in s && s.run.includes("prune.sh"));
    expect(pruneAt).toBeGreaterThan(steps.findIndex((s) => s.id === "install"));
    expect(pruneAt).toBeLessThan(names.indexOf(save?.name ?? ""));
    expect(cachedPaths("/c").sort()).toEqual(["/c/CACHEDIR.TAG", "/c/sha256"]);
    expect(YML).not.toMatch(/node_modules|dist\/|compile-cache/);
    expect(YML).not.toMatch(/uses: actions\/cache@/);
  });
});
