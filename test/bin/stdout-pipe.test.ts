import { describe, expect, it } from "vitest";
import { launchCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

// A real process: EPIPE on the real stdout is bin wiring (cli-contract "Streams and output").
const shared = useMockService({ packSize: 4 * 1024 * 1024 });

/** Runs svc-dl, reads `keep` bytes of stdout, then closes the pipe as `| head -c N` does. */
async function runIntoClosingPipe(args: string[], keep: number) {
  const run = launchCli(args, { env: shared.env() });
  let read = 0;
  run.child.stdout.on("data", (d: Buffer) => {
    read += d.length;
    if (read >= keep) run.child.stdout.destroy();
  });
  const r = await run.done;
  return { code: r.code, stderr: r.stderr, read };
}

describe("stdout closed by its reader", () => {
  it("`pack get X -o - | head -c 100` ends with 0 and no error, as `assets list | head` does", async () => {
    const r = await runIntoClosingPipe(["pack", "get", "sci-fi-props", "-o", "-"], 100);
    expect(r.read).toBeGreaterThanOrEqual(100);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
  }, 30_000);
});
