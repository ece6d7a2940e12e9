import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../src/mock-server/index.js";
import type { MockService } from "../src/mock-server/types.js";
import { assertNoSecrets, cleanEnv, registerSecret } from "./helpers/cli.js";
import { install, makeProject } from "./helpers/install.js";

/** The composite action's step scripts (action.yml), run with a fake GITHUB_* environment. */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
let mock: MockService;

beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 8 * 1024 });
  registerSecret(mock.apiKey);
});
afterAll(async () => {
  await mock.close();
});

function runScript(
  name: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [join(ROOT, "scripts", "action", name)], {
      cwd,
      env: cleanEnv({ ...env, SVC_DL_ACTION_PATH: ROOT }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** `key=value` lines of a GITHUB_OUTPUT / GITHUB_ENV file. */
function keyValues(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

describe("action.yml", () => {
  it("prepare.sh + install.sh: cache dir and lock hash out, install --frozen, report path out, step summary", async () => {
    const project = makeProject();
    expect((await install(mock, project)).code).toBe(0); // writes svc-dl.lock
    const gh = mkdtempSync(join(tmpdir(), "svc-dl-gh-"));
    const files = {
      GITHUB_OUTPUT: join(gh, "output"),
      GITHUB_ENV: join(gh, "env"),
      GITHUB_STEP_SUMMARY: join(gh, "summary.md"),
    };
    for (const f of Object.values(files)) writeFileSync(f, "");
    const cacheDir = join(gh, "svc-dl-cache");
    const prep = await runScript(
      "prepare.sh",
      { ...files, INPUT_MANIFEST: "svc-dl.json", RUNNER_TEMP: gh },
      project.root,
    );
    expect(prep.code, prep.out).toBe(0);
    const outputs = keyValues(files.GITHUB_OUTPUT);
    expect(outputs["cache-dir"]).toBe(cacheDir);
    expect(outputs["lock-hash"]).toMatch(/^[0-9a-f]{64}$/);
    expect(keyValues(files.GITHUB_ENV).SVC_DL_CACHE_DIR).toBe(cacheDir);

    const run = await runScript(
      "install.sh",
      {
        ...files,
        SVC_API_KEY: mock.apiKey,
        SVC_DL_CACHE_DIR: cacheDir,
        INPUT_BASE_URL: mock.baseUrl,
        INPUT_MANIFEST: "svc-dl.json",
        INPUT_FROZEN: "true",
        INPUT_EXTRACT: "false",
        INPUT_CACHE: "true",
        INPUT_REPORT: "svc-dl-report.json",
      },
      project.root,
    );
    expect(run.code, run.out).toBe(0);
    assertNoSecrets(run.out, "the action's log");
    const report = keyValues(files.GITHUB_OUTPUT).report ?? "";
    expect(report).toBe(join(realpathSync(project.root), "svc-dl-report.json"));
    const doc = JSON.parse(readFileSync(report, "utf8"));
    expect(doc.complete).toBe(true);
    expect(doc.items.length).toBeGreaterThan(0);
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, "utf8")).toContain("### svc-dl install: exit 0");
  });

  it("a frozen install that fails still writes the report and fails the step", async () => {
    const project = makeProject(); // no svc-dl.lock: --frozen is exit 9
    const gh = mkdtempSync(join(tmpdir(), "svc-dl-gh-"));
    const output = join(gh, "output");
    writeFileSync(output, "");
    const run = await runScript(
      "install.sh",
      { GITHUB_OUTPUT: output, SVC_API_KEY: mock.apiKey, INPUT_BASE_URL: mock.baseUrl },
      project.root,
    );
    expect(run.code).toBe(9);
    const doc = JSON.parse(readFileSync(keyValues(output).report ?? "", "utf8"));
    expect(doc.items.every((i: { status: string }) => i.status !== "downloaded")).toBe(true);
  });

  it("passes inputs to the scripts as environment variables only, and the key only as SVC_API_KEY", () => {
    const yml = readFileSync(join(ROOT, "action.yml"), "utf8");
    for (const line of yml.split("\n").filter((l) => /^\s+run:/.test(l))) {
      expect(line).not.toMatch(/inputs\./);
    }
    expect(yml.match(/inputs\.api-key/g)).toHaveLength(1);
    expect(yml).toMatch(/SVC_API_KEY: \$\{\{ inputs\.api-key \}\}/);
    expect(yml).toMatch(
      /key: svc-dl-\$\{\{ runner\.os \}\}-\$\{\{ steps\.prepare\.outputs\.lock-hash \}\}/,
    );
    expect(yml).not.toMatch(/npx|npm install -g|npm exec/);
  });
});
