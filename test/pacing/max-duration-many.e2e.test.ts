import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { useMockService } from "../helpers/mock.js";

/**
 * `--max-duration` in `install` and several-slug `pack get` (cli-contract "Operating
 * unattended"): the items not started are listed `deferred`. The service and every run share
 * one manual clock: one download per 200 s, so the second item's wait for the reset passes the
 * 60 s window; nothing sleeps.
 */

const clock = manualClock();
const SLUGS = ["desert-rocks", "low-poly-forest", "sci-fi-props"];

const shared = useMockService({ now: clock.now, packSize: 64 * 1024 });
beforeEach(() => {
  shared.mock.set({ limits: { download: { quota: 1, windowSeconds: 200 } } });
});

const env = () => shared.env();
const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-deadline-many-"));

interface Doc {
  items: { slug: string; status: string; error: { code: string } | null }[];
  summary: { deferred?: number };
  complete: boolean;
  error?: { code: string; retryable: boolean };
}

/**
 * Runs `argv` (which writes `report`) with a 60 s window: exit 10, in both the `--json`
 * document and the report the first item downloaded, the second stopped at the deadline, the
 * third not started (no request made for it); then without the window: exit 0, every item done.
 */
async function stopThenFinish(argv: string[], report: string): Promise<void> {
  const r = await runCli(["--max-duration", "60s", ...argv], { env: env(), clock });
  expect(r.code).toBe(10);
  for (const text of [r.stdout, readFileSync(report, "utf8")]) {
    const doc = JSON.parse(text) as Doc;
    expect(doc.items.map((i) => i.slug)).toEqual(SLUGS);
    const [first, second, third] = doc.items;
    expect(first?.status).toBe("downloaded");
    expect(second).toMatchObject({ status: "deferred", error: { code: "deadline_reached" } });
    expect(third).toMatchObject({ status: "deferred", error: null });
    expect(doc.summary.deferred).toBe(2);
    expect(doc.complete).toBe(false);
    expect(doc.error).toMatchObject({ code: "deadline_reached", retryable: true });
  }
  expect(shared.mock.requests.filter((q) => /\/download(\?|$)/.test(q.url)).length).toBe(1);
  const again = await runCli(argv, { env: env(), clock });
  expect(again.code).toBe(0);
  const next = JSON.parse(again.stdout) as Doc;
  expect(next.complete).toBe(true);
  expect(next.items.map((i) => i.status)).toEqual(["up-to-date", "downloaded", "downloaded"]);
}

describe("--max-duration with several items", () => {
  it("install: exit 10, the items not finished deferred; the next run completes", async () => {
    const root = tempDir();
    const manifest = join(root, "svc-dl.json");
    writeFileSync(manifest, JSON.stringify({ dir: "assets", packs: SLUGS }));
    const report = join(root, "report.json");
    await stopThenFinish(["install", "--manifest", manifest, "--json", "--report", report], report);
  });

  it("pack get a b c: exit 10, the items not finished deferred; the next run completes", async () => {
    const dir = tempDir();
    const report = join(dir, "report.json");
    const out = join(dir, "out/");
    await stopThenFinish(
      ["pack", "get", ...SLUGS, "-o", out, "--json", "--report", report],
      report,
    );
  });
});
