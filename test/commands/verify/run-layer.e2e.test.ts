import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { manualClock } from "../../helpers/clock.js";
import { useMockService } from "../../helpers/mock.js";

/**
 * `verify` is an unattended command (cli-contract "Operating unattended"): `--report`,
 * `--metrics`, `--on-item`, the plain-log header and time stamps, and a stop part-way that
 * reports the items settled so far. Real temp directories filled by a real sync.
 */

const shared = useMockService({
  packSize: 8 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

const tempDir = (): string => mkdtempSync(join(tmpdir(), "svc-dl-verify-run-"));

interface VerifyDoc {
  dir: string;
  items: { path: string; status: string; slug: string; kind: string; bytes: number | null }[];
  summary: Record<string, number>;
  complete: boolean;
  error?: { code: string };
}

/** A directory holding every owned pack, synced; returns it and its files. */
async function synced(): Promise<{ dir: string; files: string[] }> {
  const dir = tempDir();
  const r = await runCli(["packs", "sync", dir, "--json"], { env: shared.env() });
  expect(r.code, r.stderr).toBe(0);
  const files = (JSON.parse(r.stdout) as VerifyDoc).items.map((i) => i.path);
  return { dir, files };
}

/** Metric samples `name{status}` of a metrics file, through an exposition-format parser. */
function samples(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const family of parsePrometheusTextFormat(readFileSync(file, "utf8"))) {
    for (const s of family.metrics) {
      expect(s.labels?.command).toBe("verify");
      const status = s.labels?.status ? `{${s.labels.status}}` : "";
      out.set(`${family.name}${status}`, Number(s.value));
    }
  }
  return out;
}

describe("verify in the run layer", () => {
  it("--report and --metrics: the --json document with its summary; last success kept when a file changed", async () => {
    const { dir, files } = await synced();
    const out = tempDir();
    const report = join(out, "verify.json");
    const metrics = join(out, "verify.prom");
    const args = ["verify", dir, "--json", "--report", report, "--metrics", metrics];
    const r = await runCli(args, { env: {} });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as VerifyDoc;
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(doc);
    expect(doc.complete).toBe(true);
    expect(doc.summary).toEqual({ ok: files.length, changed: 0, damaged: 0, missing: 0 });
    expect(doc.items[0]).toMatchObject({ kind: "pack", bytes: 8 * 1024 });
    const m = samples(metrics);
    expect(m.get("svc_dl_items{ok}")).toBe(files.length);
    expect(m.get("svc_dl_items{changed}")).toBe(0);
    expect(m.get("svc_dl_items{missing}")).toBe(0);
    expect(m.get("svc_dl_exit_code")).toBe(0);
    const success = m.get("svc_dl_last_success_timestamp_seconds");
    expect(success).toBe(m.get("svc_dl_last_run_timestamp_seconds"));

    appendFileSync(files[0] ?? "", "tampered");
    const bad = await runCli(args, { env: {} });
    expect(bad.code).toBe(1);
    const badDoc = JSON.parse(bad.stdout) as VerifyDoc;
    expect(badDoc.summary).toEqual({ ok: files.length - 1, changed: 1, damaged: 0, missing: 0 });
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(badDoc);
    const m2 = samples(metrics);
    expect(m2.get("svc_dl_items{changed}")).toBe(1);
    expect(m2.get("svc_dl_exit_code")).toBe(1);
    expect(m2.get("svc_dl_last_success_timestamp_seconds")).toBe(success);
  });

  it("without a terminal: the header line, HH:MM:SS on stderr lines, stdout left as data", async () => {
    const { dir, files } = await synced();
    const clock = manualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    const r = await runCli(["verify", dir], { env: {}, clock });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^svc-dl \S+ verify started 2026-01-02T/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d \d+ recorded files: \d+ ok, 0 changed, 0 missing$/),
    ]);
    expect(r.stdout.trimEnd().split("\n")).toEqual(files.map((f) => `ok       ${f}`).sort());
  });

  it("--on-item runs after each verdict with the item's JSON and variables", async () => {
    const { dir, files } = await synced();
    const out = tempDir();
    const hook = `cat > "${out}/$SVC_DL_ITEM_SLUG.json"; echo "$SVC_DL_ITEM_STATUS $SVC_DL_ITEM_PATH" > "${out}/$SVC_DL_ITEM_SLUG.env"`;
    const r = await runCli(["verify", dir, "--json", "--on-item", hook], { env: {} });
    expect(r.code, r.stderr).toBe(0);
    for (const item of (JSON.parse(r.stdout) as VerifyDoc).items) {
      expect(JSON.parse(readFileSync(join(out, `${item.slug}.json`), "utf8"))).toEqual(item);
      expect(readFileSync(join(out, `${item.slug}.env`), "utf8")).toBe(`ok ${item.path}\n`);
    }
    expect(files.length).toBeGreaterThan(1);
  });

  it("--repair stopped by a refused key reports the items settled so far, complete:false", async () => {
    const { dir, files } = await synced();
    appendFileSync(files[1] ?? "", "tampered");
    const report = join(tempDir(), "r.json");
    const revoked = shared.mock.keys.key_revoked ?? "";
    const r = await runCli(["verify", dir, "--repair", "--json", "--report", report], {
      env: { ...shared.env(), SVC_API_KEY: revoked },
    });
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as VerifyDoc;
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(doc);
    expect(doc).toMatchObject({ dir, complete: false, error: { code: "revoked_api_key" } });
    expect(doc.items.map((i) => i.status)).toEqual(files.slice(0, -1).map(() => "ok"));
    expect(doc.summary).toEqual({
      ok: files.length - 1,
      changed: 0,
      damaged: 0,
      missing: 0,
      repaired: 0,
    });
  });

  it("a DIR that does not exist still leaves a report with the error", async () => {
    const report = join(tempDir(), "r.json");
    const r = await runCli(["verify", join(tempDir(), "nope"), "--report", report], { env: {} });
    expect(r.code).toBe(2);
    const doc = JSON.parse(readFileSync(report, "utf8")) as VerifyDoc;
    expect(doc).toMatchObject({ complete: false, items: [], error: { code: "dir_not_found" } });
  });
});

describe("verify --max-duration", () => {
  it("no file is hashed after the deadline: the rest are deferred, exit 10; the next run finishes", async () => {
    const { dir, files } = await synced();
    // a clock that moves 25 s each time it is read: a 60 s window ends within a few files
    const base = manualClock(Date.UTC(2026, 0, 2));
    const ticking = {
      now: () => {
        base.advance(25_000);
        return base.now();
      },
      advance: base.advance,
    };
    const report = join(tempDir(), "r.json");
    const argv = ["--max-duration", "60s", "verify", dir, "--json", "--report", report];
    const r = await runCli(argv, { env: {}, clock: ticking });
    expect(r.code).toBe(10);
    const doc = JSON.parse(r.stdout) as VerifyDoc;
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(doc);
    expect(doc).toMatchObject({ complete: false, error: { code: "deadline_reached" } });
    const statuses = doc.items.map((i) => i.status);
    expect(statuses).toHaveLength(files.length);
    expect(statuses.join(",")).toMatch(/^(ok,)*deferred(,deferred)*$/);
    const deferred = statuses.filter((s) => s === "deferred").length;
    expect(doc.summary).toEqual({
      ok: files.length - deferred,
      changed: 0,
      damaged: 0,
      missing: 0,
      deferred,
    });

    const again = await runCli(["verify", dir, "--json"], { env: {} });
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as VerifyDoc).summary.ok).toBe(files.length);
  });
});
