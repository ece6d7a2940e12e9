import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";

/** `--on-done CMD` (cli-contract "Credentials, schedules and offline runs"): a real /bin/sh hook. */

let mock: MockService;
let env: Record<string, string>;
beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 4 * 1024 });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
});
afterAll(async () => {
  await mock.close();
});

/** A hook that keeps what it was given: its stdin and its environment, in `out`. */
function recordingHook(out: string): string {
  return `cat > "${out}/doc.json"; env > "${out}/env"`;
}

function vars(out: string): Record<string, string> {
  const lines = readFileSync(join(out, "env"), "utf8").split("\n");
  return Object.fromEntries(
    lines
      .filter((l) => l.startsWith("SVC_"))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

describe("--on-done", () => {
  it("after a sync: the run's document on stdin, exit code, command and report path, never a key", async () => {
    const dir = tempDir();
    const out = tempDir();
    const keyFile = join(tempDir(), "key");
    writeFileSync(keyFile, mock.apiKey, { mode: 0o600 });
    const r = await runCli(
      ["packs", "sync", dir, "--report", "run.json", "--on-done", recordingHook(out)],
      { env: { ...env, SVC_API_KEY_FILE: keyFile }, cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, "doc.json"), "utf8"));
    expect(doc).toEqual(JSON.parse(readFileSync(join(dir, "run.json"), "utf8")));
    expect(doc.summary.downloaded).toBeGreaterThan(0);
    expect(vars(out)).toEqual({
      SVC_BASE_URL: mock.baseUrl,
      SVC_DL_CONFIG_DIR: expect.any(String),
      SVC_DL_EXIT_CODE: "0",
      SVC_DL_COMMAND: "packs sync",
      SVC_DL_REPORT: join(dir, "run.json"),
    });
    expect(readFileSync(join(out, "env"), "utf8")).not.toContain(mock.apiKey);
  });

  it("after a run that failed at once (a refused key): told the run's exit code", async () => {
    const out = tempDir();
    const r = await runCli(["install", "--on-done", recordingHook(out)], {
      env: { ...env, SVC_API_KEY: mock.keys.key_revoked ?? "" },
      cwd: projectWith(["forest-pack"]),
    });
    expect(r.code).toBe(3);
    expect(vars(out).SVC_DL_EXIT_CODE).toBe("3");
    expect(vars(out).SVC_DL_COMMAND).toBe("install");
    expect(vars(out).SVC_DL_REPORT).toBeUndefined();
    expect(JSON.parse(readFileSync(join(out, "doc.json"), "utf8"))).toMatchObject({
      complete: false,
      error: { code: "revoked_api_key" },
    });
  });

  it("after several slugs where one failed: exit 1, and a failing hook is only a warning", async () => {
    const dir = tempDir();
    const out = tempDir();
    const r = await runCli(
      [
        "asset",
        "get",
        "free-sample-cube",
        "no-such-asset-anywhere",
        "-o",
        `${dir}/`,
        "--on-done",
        `${recordingHook(out)}; echo done-hook-ran >&2; exit 5`,
      ],
      { env },
    );
    expect(r.code).toBe(1);
    expect(vars(out).SVC_DL_EXIT_CODE).toBe("1");
    expect(vars(out).SVC_DL_COMMAND).toBe("asset get");
    expect(r.stderr).toContain("done-hook-ran");
    expect(r.stderr).toMatch(/warning: --on-done exited with code 5/);
  });

  it("verify runs it too (no network)", async () => {
    const out = tempDir();
    const r = await runCli(["verify", tempDir(), "--on-done", recordingHook(out)], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(vars(out)).toMatchObject({ SVC_DL_EXIT_CODE: "0", SVC_DL_COMMAND: "verify" });
  });
});

function projectWith(packs: string[]): string {
  const project = tempDir();
  writeFileSync(join(project, "svc-dl.json"), JSON.stringify({ dir: "assets", packs }));
  return project;
}
