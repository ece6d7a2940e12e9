import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockService } from "../../src/mock-server/index.js";

/** A fresh empty directory for one test. */
export function tempDir(prefix = "svc-dl-dl-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment that points the CLI at `mock` with its demo key. */
export function envFor(mock: MockService): Record<string, string> {
  return { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
}

/** Lower-case hex SHA-256 of a file. */
export function sha256Of(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Requests the mock's CDN origin answered with a body (file downloads). */
export function cdnRequests(mock: MockService): MockService["requests"] {
  return mock.requests.filter((r) => r.origin === "cdn");
}

/** ESC: any cursor-control or colour sequence starts with it. */
export const ESC = "\u001b";

/** Spawns the built CLI (clean SVC_* environment) and collects stdout as raw bytes. */
export async function runCliBytes(
  args: string[],
  opts: { env: Record<string, string>; cwd: string },
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const { spawn } = await import("node:child_process");
  const { CLI_BIN, tempConfigDir } = await import("../helpers/cli.js");
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("SVC_")) env[k] = v;
  }
  Object.assign(env, { SVC_DL_CONFIG_DIR: tempConfigDir() }, opts.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: opts.cwd, env });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.end();
  });
}
