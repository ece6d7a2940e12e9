import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";

/**
 * A run stopped part-way (cli-contract "Operating unattended", "--report") reports each
 * command's own document: the members and summary counters a complete run of that command
 * has, over the items settled so far, with `"complete": false` and the error; the human output
 * ends with the command's own summary line. The download budget allows two files, and
 * `--max-wait 0` stops the run at the third.
 */

const SLUGS = ["desert-rocks", "low-poly-forest", "sci-fi-props"];

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 8 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ limits: { download: { quota: 2, windowSeconds: 3600 } } });
});

const env = () => ({ SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey });
const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-stopped-"));

/** Runs `argv` with `--json --report`; checks the stop and returns the printed document. */
async function stoppedDoc(argv: string[], report: string): Promise<Record<string, unknown>> {
  const r = await runCli(["--max-wait", "0", ...argv, "--json", "--report", report], {
    env: env(),
  });
  expect(r.code).toBe(6);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(doc);
  expect(doc.complete).toBe(false);
  expect(doc.error).toMatchObject({ code: "rate_limited", retryable: true });
  const statuses = (doc.items as { status: string }[]).map((i) => i.status);
  expect(statuses).toEqual(["downloaded", "downloaded"]);
  return doc;
}

describe("a run stopped part-way reports the command's own summary", () => {
  it("packs sync: dir, items, the sync summary (filtered included); the human summary line", async () => {
    const dir = tempDir();
    const report = join(tempDir(), "r.json");
    const doc = await stoppedDoc(["packs", "sync", dir], report);
    expect(Object.keys(doc)).toEqual(["dir", "items", "summary", "complete", "error"]);
    expect(doc.dir).toBe(dir);
    expect(doc.summary).toEqual({
      downloaded: 2,
      up_to_date: 0,
      failed: 0,
      filtered: 0,
      not_started: expect.any(Number),
    });

    mock.set({ limits: { download: { quota: 1, windowSeconds: 3600 } } });
    const human = await runCli(["--max-wait", "0", "packs", "sync", tempDir()], { env: env() });
    expect(human.code).toBe(6);
    const summary = human.stderr.search(
      /\d\d:\d\d:\d\d sync of .*: \d+ pack files, 1 downloaded, 0 up to date, 0 failed, .*\d+ not started/,
    );
    expect(summary).toBeGreaterThan(0);
    expect(human.stderr.indexOf("error: ")).toBeGreaterThan(summary);
  });

  it("install: manifest, lock, dir, items, the install summary, lock_changes", async () => {
    const root = tempDir();
    writeFileSync(join(root, "svc-dl.json"), JSON.stringify({ dir: "assets", packs: SLUGS }));
    const report = join(root, "r.json");
    const manifest = join(root, "svc-dl.json");
    const doc = await stoppedDoc(["install", "--no-cache", "--manifest", manifest], report);
    expect(Object.keys(doc)).toEqual([
      "manifest",
      "lock",
      "dir",
      "items",
      "summary",
      "lock_changes",
      "complete",
      "error",
    ]);
    expect(doc.summary).toEqual({
      downloaded: 2,
      up_to_date: 0,
      from_cache: 0,
      failed: 0,
      lock_mismatch: 0,
      no_request: 0,
    });
    expect(doc.lock_changes).toEqual([]);
  });

  it("several-slug pack get: items and {downloaded, up_to_date, failed}; the human line", async () => {
    const dir = tempDir();
    const report = join(dir, "r.json");
    const doc = await stoppedDoc(["pack", "get", ...SLUGS, "-o", `${dir}/`], report);
    expect(Object.keys(doc)).toEqual(["items", "summary", "complete", "error"]);
    expect(doc.summary).toEqual({ downloaded: 2, up_to_date: 0, failed: 0 });

    mock.set({ limits: { download: { quota: 2, windowSeconds: 3600 } } });
    const argv = ["--max-wait", "0", "pack", "get", ...SLUGS, "-o", `${tempDir()}/`];
    const human = await runCli(argv, { env: env() });
    expect(human.code).toBe(6);
    expect(human.stderr).toContain("3 items: 2 downloaded, 0 up to date, 0 failed, 1 not started");
  });
});
