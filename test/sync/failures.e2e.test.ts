import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { acquireDirLock } from "../../src/outdir/lock.js";
import { launchCli, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { type SyncDoc, startSyncMock } from "../helpers/sync.js";
import { whenInDir } from "../helpers/wait.js";

/** `packs sync` failures (cli-contract "packs sync"): item-level goes on, account-level stops, locks. */

let mock: MockService;
let env: Record<string, string>;
let owned: string[];

beforeAll(async () => {
  ({ mock, env, owned } = await startSyncMock(32 * 1024));
});
afterAll(async () => {
  await mock.close();
});
afterEach(() => {
  mock.set({
    faults: {},
    orders: { ord_1001: { paid: true } },
    keys: { key_demo: { revoked: false } },
  });
});

function downloadRequests(): RequestLogEntry[] {
  return mock.requests.filter((e) => e.origin === "api" && /\/download(\?|$)/.test(e.url));
}

/** Names, sizes and mtimes of everything under `dir`, to prove a run touched nothing. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      out.push(`${p} ${st.isDirectory() ? "dir" : st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** Bytes in the largest partial data file (`.svc-dl/*.part`) under `dir`; -1 when there is none. */
function partBytes(dir: string): number {
  const stateDir = join(dir, ".svc-dl");
  if (!existsSync(stateDir)) return -1;
  const sizes = readdirSync(stateDir)
    .filter((n) => n.endsWith(".part"))
    .map((n) => statSync(join(stateDir, n), { throwIfNoEntry: false })?.size ?? -1);
  return Math.max(-1, ...sizes);
}

describe("packs sync: item-level failures", () => {
  it("reports a pack the service refuses (not_entitled), goes on, and exits 1 with a summary", async () => {
    // ord_1001 not paid: its packs stay listed, their downloads answer 403 not_entitled.
    mock.set({ orders: { ord_1001: { paid: false } } });
    const dir = tempDir();
    mock.clearLog();
    const r = await runCli(["packs", "sync", dir, "--json"], { env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as SyncDoc;
    const failed = doc.items.filter((i) => i.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(doc.summary).toEqual({
      downloaded: owned.length - failed.length,
      up_to_date: 0,
      failed: failed.length,
      filtered: 0,
    });
    // the run went on past the failures: some pack after the first failure was downloaded
    const firstFailed = doc.items.findIndex((i) => i.status === "failed");
    expect(doc.items.slice(firstFailed + 1).some((i) => i.status === "downloaded")).toBe(true);
    const refused = downloadRequests().filter((e) => e.status === 403);
    expect(refused).toHaveLength(failed.length);
    for (const item of failed) {
      expect(item.error?.code).toBe("not_entitled");
      expect(item.error?.http_status).toBe(403);
      expect(item.reason).toBe("new");
      const entry = refused.find((e) => e.url === `/api/v1/packs/${item.slug}/download`);
      expect(item.error?.request_id).toBe(entry?.requestId);
    }
    // --json: one JSON error line on stderr naming the outcome
    const err = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "") as { error: { code: string } };
    expect(err.error.code).toBe("sync_incomplete");

    // Human output: a summary line per failed pack with its code and request id.
    const human = await runCli(["packs", "sync", dir], { env });
    expect(human.code).toBe(1);
    for (const item of failed) {
      const line = human.stderr
        .split("\n")
        .map((l) => l.replace(/^\d\d:\d\d:\d\d /, "")) // a plain log's time
        .find((l) => l.startsWith(`failed: ${item.slug} (standard)`));
      expect(line).toContain("not_entitled");
      expect(line).toMatch(/request id [A-Za-z0-9_-]{8,64}/);
    }
    expect(human.stderr).toContain("sync_incomplete");

    // Once the order is paid again, the next run fetches only what failed.
    mock.set({ orders: { ord_1001: { paid: true } } });
    mock.clearLog();
    const again = await runCli(["packs", "sync", dir, "--json"], { env });
    expect(again.code).toBe(0);
    expect(downloadRequests()).toHaveLength(failed.length);
  });
});

describe("packs sync: account-level failures stop the run", () => {
  it("a revoked key exits 3 at once: no download request, lock released", async () => {
    const dir = tempDir();
    const revoked = mock.keys.key_revoked ?? "";
    mock.clearLog();
    const r = await runCli(["packs", "sync", dir, "--json"], {
      env: { ...env, SVC_API_KEY: revoked },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr.trim()).error.code).toBe("revoked_api_key");
    expect(downloadRequests()).toHaveLength(0);
    expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);
  });

  it("a key revoked mid-run stops at the next request with exit 3", async () => {
    const dir = tempDir();
    // Slow bodies so that the key can be revoked while the first pack is transferring.
    mock.set({ faults: { throttleBytesPerSecond: 64 * 1024 } });
    mock.clearLog();
    const run = runCli(["packs", "sync", dir], { env });
    await whenInDir(join(dir, ".svc-dl"), () => partBytes(dir) >= 0, {
      what: "the first pack's transfer",
      until: run,
    });
    mock.revokeKey(mock.apiKey);
    const r = await run;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("revoked_api_key");
    const downloads = downloadRequests();
    const denied = downloads.filter((e) => e.status === 401);
    expect(denied).toHaveLength(1);
    expect(downloads.at(-1)?.status).toBe(401);
    expect(downloads.length).toBeLessThan(owned.length);
    expect(r.stderr).toContain(`request id ${denied[0]?.requestId}`);
  });

  it("a blocked account exits 4 with blocked; a key without downloads:read stops at its first download", async () => {
    const blocked = await runCli(["packs", "sync", tempDir()], {
      env: { ...env, SVC_API_KEY: mock.keys.key_blocked ?? "" },
    });
    expect(blocked.code).toBe(4);
    expect(blocked.stderr).toContain("blocked");

    mock.clearLog();
    const scope = await runCli(["packs", "sync", tempDir()], {
      env: { ...env, SVC_API_KEY: mock.keys.key_catalog_only ?? "" },
    });
    expect(scope.code).toBe(4);
    expect(scope.stderr).toContain("insufficient_scope");
    expect(downloadRequests()).toHaveLength(1);
  });
});

describe("packs sync: the directory lock", () => {
  it("exits 8 (locked) at once when another run holds DIR, and touches nothing", async () => {
    const dir = tempDir();
    const lock = await acquireDirLock(dir);
    try {
      const before = snapshot(dir);
      mock.clearLog();
      const r = await runCli(["packs", "sync", dir], { env });
      expect(r.code).toBe(8);
      expect(r.stderr).toContain("locked");
      expect(mock.requests).toHaveLength(0);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      await lock.release();
    }
  });

  it("of two overlapping runs on one DIR, the second exits 8 and the first completes", async () => {
    const dir = tempDir();
    // Slow enough that the first run cannot finish while the second starts, however loaded the
    // machine; the throttle is lifted once the second run has answered.
    mock.set({ faults: { throttleBytesPerSecond: 2 * 1024 } });
    const first = runCli(["packs", "sync", dir, "--json"], { env });
    await whenInDir(join(dir, ".svc-dl"), () => existsSync(join(dir, ".svc-dl", "lock")), {
      what: "the first run's lock",
      until: first,
    });
    const second = await runCli(["packs", "sync", dir, "--json"], { env });
    mock.set({ faults: {} });
    expect(second.code).toBe(8);
    expect(second.stdout).toBe("");
    expect(JSON.parse(second.stderr.trim()).error.code).toBe("locked");
    const r = await first;
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as SyncDoc).summary.downloaded).toBe(owned.length);
  });
});

describe("packs sync: interruption", () => {
  it("SIGINT mid-pack exits 130 with the lock released; the next run resumes that pack", async () => {
    const dir = tempDir();
    // Packs of 3 MiB at 1 MiB/s: partial data reaches the disk in 1 MiB writes, so a part file
    // with bytes in it means a pack is under way (about a second in, two to go).
    mock.set({ packSize: 3 * 1024 * 1024, faults: { throttleBytesPerSecond: 1024 * 1024 } });
    mock.clearLog();
    const run = launchCli(["packs", "sync", dir], { env: { ...env, NO_COLOR: "1" } });
    await whenInDir(join(dir, ".svc-dl"), () => partBytes(dir) > 0, {
      what: "partial data",
      until: run.done,
    });
    run.child.kill("SIGINT");
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("interrupted");
    expect(existsSync(join(dir, ".svc-dl", "lock"))).toBe(false);

    mock.set({ faults: {} });
    try {
      const r = await runCli(["packs", "sync", dir, "--json"], { env });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout) as SyncDoc;
      expect(doc.items.filter((i) => i.status === "resumed")).toHaveLength(1);
      expect(doc.summary.failed).toBe(0);
    } finally {
      mock.set({ packSize: 32 * 1024 });
    }
  });
});
