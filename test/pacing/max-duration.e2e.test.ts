import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { useMockService } from "../helpers/mock.js";
import type { SyncDoc } from "../helpers/sync.js";

/**
 * `--max-duration` and `--limit-rate` (cli-contract "Operating unattended"): the service and
 * every run share one manual clock, so waits and the deadline move it on; nothing sleeps.
 */

const clock = manualClock();
const PACK_SIZE = 256 * 1024;

const shared = useMockService({ now: clock.now, packSize: PACK_SIZE });
beforeEach(() => {
  shared.mock.set({ limits: { download: { quota: 1000, windowSeconds: 60 } } });
});

const env = () => shared.env();
const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-deadline-"));

type DeferredDoc = SyncDoc & {
  summary: { deferred?: number };
  complete?: boolean;
  error?: { code: string; retryable: boolean };
};

/** The partial-data files (`*.part` anywhere under DIR/.svc-dl) and their sizes. */
function partials(dir: string): number[] {
  const found: number[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".part")) found.push(statSync(p).size);
    }
  };
  if (existsSync(join(dir, ".svc-dl"))) walk(join(dir, ".svc-dl"));
  return found;
}

describe("--max-duration", () => {
  it("a rate-limit wait longer than the window ends at the deadline: exit 10, the rest deferred", async () => {
    // One download per 200 s: the second pack must wait for the reset, past the 60 s window.
    shared.mock.set({ limits: { download: { quota: 1, windowSeconds: 200 } } });
    const dir = tempDir();
    const start = clock.now();
    const r = await runCli(["--max-duration", "60s", "packs", "sync", dir, "--json"], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(10);
    // the wait ended at the deadline, not at the reset 200 s away
    expect(clock.now() - start).toBe(60_000);
    const doc = JSON.parse(r.stdout) as DeferredDoc;
    const [first, second, ...rest] = doc.items;
    expect(first?.status).toBe("downloaded");
    expect(second?.status).toBe("deferred");
    expect(second?.error?.code).toBe("deadline_reached");
    expect(rest.length).toBeGreaterThan(0);
    for (const item of rest) expect(item).toMatchObject({ status: "deferred", error: null });
    expect(doc.summary.deferred).toBe(doc.items.length - 1);
    // a stop part-way: the document says so, with the retryable error
    expect(doc.complete).toBe(false);
    expect(doc.error).toMatchObject({ code: "deadline_reached", retryable: true });
    expect(r.stderr).toMatch(/deadline_reached/);
    // no request was made for the packs not started
    const downloads = shared.mock.requests.filter((q) => /\/download(\?|$)/.test(q.url));
    expect(downloads.length).toBe(1);
  });

  it("without --max-duration the same run waits for the reset and finishes (control)", async () => {
    shared.mock.set({ limits: { download: { quota: 1, windowSeconds: 200 } } });
    const dir = tempDir();
    const r = await runCli(["packs", "sync", dir, "--json"], { env: env(), clock });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as DeferredDoc;
    expect(doc.items.every((i) => i.status === "downloaded")).toBe(true);
    expect(doc.summary.deferred).toBeUndefined();
  });

  it("a value that is no duration: exit 2, invalid_max_duration as the library says, no request", async () => {
    for (const value of ["soon", "0", "-5m"]) {
      const r = await runCli(["--json", `--max-duration=${value}`, "packs", "sync", tempDir()], {
        env: env(),
      });
      expect(r.code).toBe(2);
      const { error } = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "") as {
        error: { code: string; message: string; hint: string };
      };
      expect(error.code).toBe("invalid_max_duration");
      expect(error.message).toBe(`--max-duration: ${JSON.stringify(value)} is not a duration`);
      expect(error.hint).toContain("90s, 30m, 2h");
    }
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("a 429 wait of the listing longer than the window ends at the deadline (exit 10)", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 120 } } });
    const start = clock.now();
    const r = await runCli(["--max-duration", "30", "packs", "sync", tempDir()], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(10);
    expect(clock.now() - start).toBe(30_000);
    expect(r.stderr).toMatch(/deadline_reached/);
    expect(r.stderr).toMatch(/--max-duration/);
  });

  it("a download running at the deadline stops with its partial data kept; the next run resumes it", async () => {
    const dir = tempDir();
    const start = clock.now();
    // 64 KiB/s: a 256 KiB pack needs 4 s; the window is 2 s.
    const r = await runCli(
      ["--max-duration", "2", "--limit-rate", "64K", "packs", "sync", dir, "--json"],
      { env: env(), clock, timeoutMs: 25000 },
    );
    expect(r.code).toBe(10);
    expect(clock.now() - start).toBe(2000);
    const doc = JSON.parse(r.stdout) as DeferredDoc;
    expect(doc.items[0]).toMatchObject({ status: "deferred", error: { code: "deadline_reached" } });
    const [kept] = partials(dir);
    // about 2 s of 64 KiB/s was written, not the whole file, not nothing
    expect(kept).toBeGreaterThan(100 * 1024);
    expect(kept).toBeLessThan(160 * 1024);
    const again = await runCli(["packs", "sync", dir, "--json"], { env: env(), clock });
    expect(again.code).toBe(0);
    const next = JSON.parse(again.stdout) as DeferredDoc;
    expect(next.items[0]?.status).toBe("resumed");
    expect(next.items.every((i) => i.status !== "deferred")).toBe(true);
  });

  it("a run that finishes inside the window exits 0 with nothing deferred", async () => {
    const r = await runCli(["--max-duration", "2h", "packs", "sync", tempDir(), "--json"], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as DeferredDoc;
    expect(doc.summary.deferred).toBe(0);
  });

  it("refuses a value that is not a duration (exit 2)", async () => {
    const r = await runCli(["--max-duration", "soon", "packs", "sync", tempDir()], {
      env: env(),
      clock,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/90s, 30m, 2h/);
  });
});

describe("--limit-rate", () => {
  it("paces a download to the rate (virtual time ≈ size / rate)", async () => {
    const start = clock.now();
    const r = await runCli(
      ["--limit-rate", "128K", "pack", "get", "low-poly-forest", "-o", tempDir(), "--json"],
      { env: env(), clock },
    );
    expect(r.code).toBe(0);
    const elapsed = clock.now() - start;
    // 256 KiB at 128 KiB/s: 2 s, less the bucket's first 1/20 s
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThanOrEqual(2100);
  });

  it("takes SVC_DL_LIMIT_RATE, and the flag wins over it", async () => {
    let start = clock.now();
    const byEnv = await runCli(["pack", "get", "low-poly-forest", "-o", tempDir()], {
      env: { ...env(), SVC_DL_LIMIT_RATE: "64K" },
      clock,
    });
    expect(byEnv.code).toBe(0);
    expect(clock.now() - start).toBeGreaterThanOrEqual(3800);
    start = clock.now();
    const byFlag = await runCli(
      ["--limit-rate", "1M", "pack", "get", "low-poly-forest", "-o", tempDir()],
      { env: { ...env(), SVC_DL_LIMIT_RATE: "64K" }, clock },
    );
    expect(byFlag.code).toBe(0);
    expect(clock.now() - start).toBeLessThan(400);
  });

  it("refuses a rate that is not one, naming where it came from (exit 2)", async () => {
    const r = await runCli(["pack", "get", "low-poly-forest", "-o", tempDir()], {
      env: { ...env(), SVC_DL_LIMIT_RATE: "fast" },
      clock,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SVC_DL_LIMIT_RATE/);
    expect(r.stderr).toMatch(/500K, 5M, 1G/);
  });
});
