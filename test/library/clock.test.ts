import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import type { Clock } from "../../src/model.js";
import { acquireDirLock } from "../../src/outdir/lock.js";
import { useMockService } from "../helpers/mock.js";

// createClient({ clock }): every wait of an operation (rate-limit and retry waits, the lock's
// polling) runs on the given clock, so nothing here waits real seconds.
const shared = useMockService({ assetSize: 16 * 1024 });

/** A clock that moves only when slept on; `slept` lists every wait in ms. */
function manualClock(): { clock: Clock; slept: number[] } {
  let now = Date.parse("2026-11-24T12:00:00Z");
  const slept: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      now += ms;
    },
  };
  return { clock, slept };
}

const total = (ms: number[]): number => ms.reduce((a, b) => a + b, 0);

describe("library: the clock option", () => {
  it("a 429's Retry-After wait of 30 s is slept on the given clock", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 30 } } });
    const { clock, slept } = manualClock();
    const c = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey, clock });
    const me = await c.whoami();
    expect(me.account.id).toMatch(/^usr_/);
    expect(total(slept)).toBeGreaterThanOrEqual(30_000);
  });

  it.each(["downloadAsset", "sync"] as const)(
    "%s: a lock wait of 120 s polls on the given clock, then ends with locked",
    async (operation) => {
      const dir = mkdtempSync(join(tmpdir(), "svc-dl-lib-clock-"));
      const { clock, slept } = manualClock();
      const c = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey, clock });
      const held = await acquireDirLock(dir);
      try {
        const call =
          operation === "sync"
            ? c.sync(dir, { waitLock: 120 })
            : c.downloadAsset("free-sample-cube", { dir, waitLock: 120 });
        await expect(call).rejects.toMatchObject({ code: "locked", exitCode: 8 });
      } finally {
        await held.release();
      }
      expect(total(slept)).toBeGreaterThanOrEqual(120_000);
    },
  );
});
