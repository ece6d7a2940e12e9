import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VerifyDocumentSchema } from "../../../src/documents.js";
import { runCli } from "../../helpers/cli.js";
import { manualClock } from "../../helpers/clock.js";
import { useMockService } from "../../helpers/mock.js";

/**
 * `verify --repair --max-duration` (cli-contract "verify", "Operating unattended"): a deadline
 * reached while repairs run lists the repair stopped at it and the repairs not started as
 * `deferred`. The service and the runs share one manual clock; once DIR is synced the service
 * allows one download per 200 s, so the second repair waits for the reset past the 60 s
 * window; nothing sleeps.
 */

const clock = manualClock();
const shared = useMockService({ now: clock.now, packSize: 8 * 1024 });
const MANY = { limits: { download: { quota: 1000, windowSeconds: 60 } } };
const ONE_PER_200S = { limits: { download: { quota: 1, windowSeconds: 200 } } };

describe("verify --repair --max-duration", () => {
  it("the repair stopped at the deadline and those not started are deferred; the next run repairs them", async () => {
    shared.mock.set(MANY);
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-repair-deadline-"));
    const sync = await runCli(["packs", "sync", dir, "--json"], { env: shared.env(), clock });
    expect(sync.code, sync.stderr).toBe(0);
    const files = (JSON.parse(sync.stdout) as { items: { path: string }[] }).items.map(
      (i) => i.path,
    );
    const gone = files.slice(0, 3);
    for (const file of gone) rmSync(file);
    shared.mock.set(ONE_PER_200S);
    shared.mock.resetLimits();
    clock.advance(400_000);

    const argv = ["--max-duration", "60s", "verify", "--repair", dir, "--json"];
    const r = await runCli(argv, { env: shared.env(), clock });
    expect(r.code, r.stderr).toBe(10);
    const doc = VerifyDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc).toMatchObject({ complete: false, error: { code: "deadline_reached" } });
    expect(doc.items.map((i) => i.path).sort()).toEqual([...files].sort());
    const byPath = new Map(doc.items.map((i) => [i.path, i]));
    const repairs = gone.map((f) => byPath.get(f));
    expect(repairs.map((i) => i?.status)).toEqual(["repaired", "deferred", "deferred"]);
    expect(repairs[1]?.error?.code).toBe("deadline_reached");
    expect(repairs[2]?.error).toBeNull();
    expect(doc.summary).toMatchObject({ ok: files.length - 3, repaired: 1, deferred: 2 });

    shared.mock.set(MANY);
    shared.mock.resetLimits();
    const again = await runCli(["verify", "--repair", dir, "--json"], { env: shared.env(), clock });
    expect(again.code, again.stderr).toBe(0);
    const next = VerifyDocumentSchema.parse(JSON.parse(again.stdout));
    expect(next.summary).toMatchObject({ ok: files.length - 2, repaired: 2 });
  });

  it("a deadline reached before the repairs start defers every repair, none is reported missing", async () => {
    shared.mock.set(MANY);
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-repair-deadline-"));
    const sync = await runCli(["packs", "sync", dir, "--json"], { env: shared.env(), clock });
    expect(sync.code, sync.stderr).toBe(0);
    const [first] = (JSON.parse(sync.stdout) as { items: { path: string }[] }).items;
    rmSync(first?.path ?? "");
    shared.mock.clearLog();
    // a clock that moves 25 s each time it is read: the 60 s window ends after the first file
    const ticking = {
      now: () => {
        clock.advance(25_000);
        return clock.now();
      },
      advance: clock.advance,
    };
    const argv = ["--max-duration", "60s", "verify", "--repair", dir, "--json"];
    const r = await runCli(argv, { env: shared.env(), clock: ticking });
    expect(r.code, r.stderr).toBe(10);
    const doc = VerifyDocumentSchema.parse(JSON.parse(r.stdout));
    const gone = doc.items.find((i) => i.path === first?.path);
    expect(gone).toMatchObject({ status: "deferred", error: null });
    expect(doc.items.filter((i) => i.status === "missing")).toEqual([]);
    expect(shared.mock.requests.filter((q) => /\/download(\?|$)/.test(q.url))).toEqual([]);
  });
});
