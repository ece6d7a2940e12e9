import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLI_BIN, cleanEnv } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

// A real process: EPIPE on the real stdout is bin wiring (cli-contract "Streams and output").
const shared = useMockService({ packSize: 4 * 1024 * 1024 });

/** Runs svc-dl, reads `keep` bytes of stdout, then closes the pipe as `| head -c N` does. */
function runIntoClosingPipe(
  args: string[],
  keep: number,
): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      env: cleanEnv(shared.env()),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let read = 0;
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      read += d.length;
      if (read >= keep) child.stdout.destroy();
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr, read }));
  });
}

describe("stdout closed by its reader", () => {
  it("`pack get X -o - | head -c 100` ends with 0 and no error, as `assets list | head` does", async () => {
    const r = await runIntoClosingPipe(["pack", "get", "sci-fi-props", "-o", "-"], 100);
    expect(r.read).toBeGreaterThanOrEqual(100);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
  }, 30_000);
});
