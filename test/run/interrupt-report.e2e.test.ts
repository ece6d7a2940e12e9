import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { launchCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

/**
 * `--report` and `--metrics` are written on an interrupt too (cli-contract "Operating
 * unattended"): SIGINT is sent once the second pack has started (the service sends slowly, so
 * it is still on the wire), an event of the run itself, never a timer.
 */

const shared = useMockService({ packSize: 32 * 1024 });
const tempDir = (): string => mkdtempSync(join(tmpdir(), "svc-dl-interrupt-"));

describe("a run interrupted part-way", () => {
  it("packs sync: exit 130; the report holds the first pack, complete:false and the interrupt", async () => {
    shared.mock.set({ faults: { throttleBytesPerSecond: 16 * 1024 } });
    const dir = tempDir();
    const report = join(tempDir(), "r.json");
    const metrics = join(tempDir(), "m.prom");
    const argv = ["packs", "sync", dir, "--report", report, "--metrics", metrics];
    const run = launchCli(argv, { env: shared.env() });
    await run.waitFor("pack 2/");
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    const doc = JSON.parse(readFileSync(report, "utf8"));
    expect(doc).toMatchObject({ dir, complete: false, error: { code: "interrupted" } });
    expect(doc.items.map((i: { status: string }) => i.status)).toEqual(["downloaded"]);
    // the pack files the run did not reach are counted (the one it was on is stopped part-way)
    expect(doc.summary).toEqual({
      downloaded: 1,
      up_to_date: 0,
      failed: 0,
      filtered: 0,
      not_started: expect.any(Number),
    });
    expect(readFileSync(metrics, "utf8")).toMatch(/^svc_dl_exit_code\{[^}]*\} 130$/m);
    // the human output ends with the sync's summary line, then the interrupt
    expect(r.stderr).toMatch(
      /sync of .*: \d+ pack files, 1 downloaded, .*1 stopped part-way \(partial data kept\), \d+ not started/,
    );
  });
});
