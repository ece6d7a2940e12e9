import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { install, makeProject } from "../helpers/install.js";

/** --report, --metrics and the partial document (cli-contract "Operating unattended"). */

let mock: MockService;
let env: Record<string, string>;
let owned: string[];

beforeAll(async () => {
  mock = await startMockService({
    quiet: true,
    packSize: 16 * 1024,
    limits: { download: { quota: 1000, windowSeconds: 60 } },
  });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
  const r = await runCli(["packs", "list", "--json"], { env });
  owned = (JSON.parse(r.stdout) as { slug: string }[]).map((p) => p.slug);
});
afterAll(async () => {
  await mock.close();
});

/** Parsed metrics as `name{labels}` → value, through a real exposition-format parser. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const family of parsePrometheusTextFormat(text)) {
    expect(family.type).toBe("GAUGE");
    for (const s of family.metrics) {
      const labels = Object.entries(s.labels ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      out.set(`${family.name}{${labels}}`, Number(s.value));
    }
  }
  return out;
}

describe("--report and --metrics", () => {
  it("packs sync writes the --json document and metrics with the contract's series", async () => {
    const dir = tempDir();
    const out = tempDir();
    const report = join(out, "sync.json");
    const metrics = join(out, "svc-dl.prom");
    const r = await runCli(
      ["packs", "sync", dir, "--json", "--report", report, "--metrics", metrics],
      { env },
    );
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.complete).toBe(true);
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(printed);
    const m = samples(readFileSync(metrics, "utf8"));
    const l = `command=packs sync,dir=${dir}`;
    expect(m.get(`svc_dl_items{${l},status=downloaded}`)).toBe(owned.length);
    expect(m.get(`svc_dl_items{${l},status=failed}`)).toBe(0);
    expect(m.get(`svc_dl_exit_code{${l}}`)).toBe(0);
    expect(m.get(`svc_dl_bytes_downloaded{${l}}`)).toBe(owned.length * 16 * 1024);
    const lastRun = m.get(`svc_dl_last_run_timestamp_seconds{${l}}`);
    expect(lastRun).toBeGreaterThan(1e9);
    expect(m.get(`svc_dl_last_success_timestamp_seconds{${l}}`)).toBe(lastRun);
    expect(m.get(`svc_dl_run_duration_seconds{${l}}`)).toBeGreaterThanOrEqual(0);
    // a second run finds everything in place: the same files, now up to date, no bytes
    const again = await runCli(["packs", "sync", dir, "--metrics", metrics], { env });
    expect(again.code).toBe(0);
    const m2 = samples(readFileSync(metrics, "utf8"));
    expect(m2.get(`svc_dl_items{${l},status=up-to-date}`)).toBe(owned.length);
    expect(m2.get(`svc_dl_bytes_downloaded{${l}}`)).toBe(0);
  });

  it("a run stopped part-way prints and writes complete:false with the error and the items settled", async () => {
    const limited = await startMockService({
      quiet: true,
      packSize: 8 * 1024,
      limits: { download: { quota: 2, windowSeconds: 3600 } },
    });
    try {
      const lenv = { SVC_BASE_URL: limited.baseUrl, SVC_API_KEY: limited.apiKey };
      const dir = tempDir();
      const out = tempDir();
      const report = join(out, "r.json");
      const metrics = join(out, "m.prom");
      const l = `command=packs sync,dir=${dir}`;
      writeFileSync(
        metrics,
        `# TYPE svc_dl_last_success_timestamp_seconds gauge\nsvc_dl_last_success_timestamp_seconds{command="packs sync",dir="${dir}"} 1234.5\n`,
      );
      const r = await runCli(
        [
          "--max-wait",
          "0",
          "packs",
          "sync",
          dir,
          "--json",
          "--report",
          report,
          "--metrics",
          metrics,
        ],
        { env: lenv },
      );
      expect(r.code).toBe(6);
      const doc = JSON.parse(r.stdout);
      expect(doc.complete).toBe(false);
      expect(doc.dir).toBe(dir);
      expect(doc.error.code).toBe("rate_limited");
      expect(doc.error.retryable).toBe(true);
      expect(Object.keys(doc.error).sort()).toEqual([
        "code",
        "hint",
        "message",
        "request_id",
        "retryable",
      ]);
      expect(doc.items.map((i: { status: string }) => i.status)).toEqual([
        "downloaded",
        "downloaded",
      ]);
      const { not_started, ...counts } = doc.summary;
      expect(counts).toEqual({ downloaded: 2, up_to_date: 0, failed: 0, filtered: 0 });
      expect(not_started).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(doc);
      // stderr still holds the one JSON error line
      expect(JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "").error.code).toBe("rate_limited");
      const m = samples(readFileSync(metrics, "utf8"));
      expect(m.get(`svc_dl_exit_code{${l}}`)).toBe(6);
      expect(m.get(`svc_dl_last_success_timestamp_seconds{${l}}`)).toBe(1234.5);
      expect(m.get(`svc_dl_items{${l},status=downloaded}`)).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it("a report that cannot be written fails a successful run with exit 8, after its outcome", async () => {
    const dir = tempDir();
    const blocker = join(tempDir(), "not-a-dir");
    writeFileSync(blocker, "x");
    const r = await runCli(
      ["packs", "sync", dir, "--report", join(blocker, "r.json"), "--metrics", join(blocker, "m")],
      { env },
    );
    expect(r.code).toBe(8);
    // the run's own closing line first, then the error of the report, the metrics a warning
    const closing = r.stderr.search(/\d+ downloaded/);
    const failed = r.stderr.search(/error: cannot write the --report file .*not-a-dir\/r\.json/);
    expect(closing).toBeGreaterThanOrEqual(0);
    expect(failed).toBeGreaterThan(closing);
    expect(r.stderr).toContain("(code write_failed)");
    expect(r.stderr).toMatch(/warning: cannot write the --metrics file .*not-a-dir\/m: ENOTDIR/);
    // with --json: the document on stdout, then the error document on stderr
    const j = await runCli(["packs", "sync", dir, "--json", "--report", join(blocker, "r.json")], {
      env,
    });
    expect(j.code).toBe(8);
    expect(JSON.parse(j.stdout).complete).toBe(true);
    expect(JSON.parse(j.stderr.trim()).error.code).toBe("write_failed");
  });

  it("a symlink at the report's path is refused (exit 8): neither written through nor replaced", async () => {
    const out = tempDir();
    const target = join(out, "elsewhere.txt");
    writeFileSync(target, "keep me\n");
    const report = join(out, "r.json");
    symlinkSync(target, report);
    const r = await runCli(["packs", "sync", tempDir(), "--report", report], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/it is a symbolic link.*\(code unsafe_output_path\)/);
    expect(readFileSync(target, "utf8")).toBe("keep me\n");
    expect(lstatSync(report).isSymbolicLink()).toBe(true);
  });

  it("a report is written when the key is refused before any item (no partial document on stdout)", async () => {
    const dir = tempDir();
    const report = join(tempDir(), "r.json");
    const revoked = mock.keys.key_revoked ?? "";
    const r = await runCli(["packs", "sync", dir, "--json", "--report", report], {
      env: { ...env, SVC_API_KEY: revoked },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    const doc = JSON.parse(readFileSync(report, "utf8"));
    expect(doc).toMatchObject({ complete: false, items: [], error: { code: "revoked_api_key" } });
  });

  it("install and several-slug pack get write the same document they print", async () => {
    const project = makeProject();
    const report = join(project.root, "out", "..", "install-report.json");
    const r = await install(mock, project, ["--report", report]);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.complete).toBe(true);
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual(printed);

    const dir = tempDir();
    const getReport = join(dir, "get.json");
    const g = await runCli(
      ["pack", "get", ...owned.slice(0, 2), "-o", `${dir}/`, "--json", "--report", getReport],
      { env },
    );
    expect(g.code).toBe(0);
    expect(JSON.parse(readFileSync(getReport, "utf8"))).toEqual(JSON.parse(g.stdout));
    expect(existsSync(getReport)).toBe(true);
  });
});
