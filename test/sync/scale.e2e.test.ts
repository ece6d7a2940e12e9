import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { tempDir } from "../helpers/files.js";

/** `packs sync` at scale: paced by the download budget; 200 complete packs cost 2 list requests. */

let mock: MockService | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

function downloadRequests(m: MockService): RequestLogEntry[] {
  return m.requests.filter((e) => e.origin === "api" && /\/download(\?|$)/.test(e.url));
}

function listRequests(m: MockService): RequestLogEntry[] {
  return m.requests.filter((e) => e.origin === "api" && /^\/api\/v1\/packs(\?|$)/.test(e.url));
}

function zipCount(dir: string): number {
  return readdirSync(dir).filter((n) => n.endsWith(".zip")).length;
}

describe("packs sync pacing", () => {
  it("syncs more packs than the download quota without a single 429, and shows the wait", async () => {
    // 7 owned packs (5 of the fixture + 2 extra), 3 downloads per 2 s window; the service and
    // the runs share one manual clock, so waits move it on instead of sleeping.
    const clock = manualClock();
    const m = await startMockService({
      quiet: true,
      now: clock.now,
      packSize: 16 * 1024,
      extraPacks: 2,
      limits: { download: { quota: 3, windowSeconds: 2 } },
    });
    mock = m;
    const env = { SVC_BASE_URL: m.baseUrl, SVC_API_KEY: m.apiKey };
    const dir = tempDir();
    const r = await runCli(["packs", "sync", dir], { env, clock });
    expect(r.code).toBe(0);
    expect(m.requests.filter((e) => e.status === 429)).toHaveLength(0);
    expect(downloadRequests(m)).toHaveLength(7);
    expect(zipCount(dir)).toBe(7);
    expect(r.stderr).toMatch(/rate limit: download budget spent; waiting \d+s/);

    // --quiet: same pacing, nothing on stderr.
    m.resetLimits();
    m.clearLog();
    const quiet = await runCli(["packs", "sync", tempDir(), "--quiet"], { env, clock });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
    expect(m.requests.filter((e) => e.status === 429)).toHaveLength(0);
  }, 60_000);
});

describe("packs sync of 200 owned packs", () => {
  it("already complete: 2 list requests and 0 download requests", async () => {
    const m = await startMockService({
      quiet: true,
      packSize: 8 * 1024,
      extraPacks: 195,
      limits: { download: { quota: 1000, windowSeconds: 60 } },
    });
    mock = m;
    const env = { SVC_BASE_URL: m.baseUrl, SVC_API_KEY: m.apiKey };
    const dir = tempDir();
    const first = await runCli(["packs", "sync", dir, "--quiet"], { env, timeoutMs: 110_000 });
    expect(first.code).toBe(0);
    expect(zipCount(dir)).toBe(200);

    m.clearLog();
    const again = await runCli(["packs", "sync", dir, "--json"], { env });
    expect(again.code).toBe(0);
    expect(listRequests(m)).toHaveLength(2);
    expect(downloadRequests(m)).toHaveLength(0);
    expect(m.requests).toHaveLength(2);
    const doc = JSON.parse(again.stdout) as { summary: unknown; items: unknown[] };
    expect(doc.items).toHaveLength(200);
    expect(doc.summary).toEqual({ downloaded: 0, up_to_date: 200, failed: 0, filtered: 0 });
  }, 120_000);
});
