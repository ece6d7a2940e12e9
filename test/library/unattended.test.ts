import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { operationPacing } from "../../src/library/unattended.js";
import { createServices } from "../../src/services.js";
import { useMockService } from "../helpers/mock.js";

/** The library's unattended options (cli-contract "Library", "Operating unattended"). */

const shared = useMockService({ packSize: 64 * 1024, assetSize: 16 * 1024 });
const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));
const client = () => createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });

describe("library: unattended options", () => {
  it("sync with prune moves a recorded file of a pack no longer owned to the trash", async () => {
    const dir = tempDir("svc-dl-lib-prune-");
    await client().sync(dir);
    const statePath = join(dir, ".svc-dl", "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8")) as {
      items: Record<string, Record<string, unknown>>;
    };
    const [name, rec] = Object.entries(state.items)[0] ?? [];
    if (!name || !rec) throw new Error("no record");
    copyFileSync(join(dir, name), join(dir, "gone-1.zip"));
    state.items["gone-1.zip"] = { ...rec, slug: "gone-1", file: "gone-1.zip", mtime_ms: undefined };
    writeFileSync(statePath, JSON.stringify(state));

    const doc = await client().sync(dir, { prune: true, maxDelete: 5 });
    expect(doc.items.filter((i) => i.status === "pruned").map((i) => i.slug)).toEqual(["gone-1"]);
    expect(existsSync(join(dir, "gone-1.zip"))).toBe(false);
    const days = readdirSync(join(dir, ".svc-dl", "trash"));
    expect(readdirSync(join(dir, ".svc-dl", "trash", days[0] ?? ""))).toContain("gone-1.zip");
  });

  it("limitRate becomes the run's transfer pacing, in bytes per second", async () => {
    const paced = (limitRate: string | number) =>
      createServices({
        baseUrl: new URL("http://127.0.0.1:9"),
        apiKey: undefined,
        userAgent: "svc-dl/test",
        ...operationPacing({ limitRate }, undefined, undefined),
      }).http.transferPacing;
    expect(paced("5M")).toMatchObject({ rateBytesPerSecond: 5 * 1024 ** 2 });
    expect(paced(65536)).toMatchObject({ rateBytesPerSecond: 65536 });
    // a paced call still completes, and a bad rate is refused before any request
    const dir = tempDir("svc-dl-lib-rate-");
    const doc = await client().downloadAsset("free-sample-cube", { dir, limitRate: "1M" });
    expect(existsSync(doc.path)).toBe(true);
    shared.mock.clearLog();
    await expect(client().sync(dir, { limitRate: "fast" })).rejects.toMatchObject({
      code: "invalid_limit_rate",
      exitCode: 2,
    });
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("report writes the run's document atomically", async () => {
    const dir = tempDir("svc-dl-lib-report-");
    const report = join(tempDir("svc-dl-lib-reports-"), "sync.json");
    const doc = await client().sync(dir, { report });
    const written = JSON.parse(readFileSync(report, "utf8")) as Record<string, unknown>;
    expect(written).toEqual({ ...JSON.parse(JSON.stringify(doc)), complete: true });
    expect((written.items as unknown[]).length).toBeGreaterThan(0);
  });

  it("a maxDuration already past throws deadline_reached with nothing downloaded", async () => {
    const dir = tempDir("svc-dl-lib-deadline-");
    const report = join(dir, "report.json");
    shared.mock.clearLog();
    await expect(
      client().sync(dir, { maxDuration: new Date(Date.now() - 1000), report }),
    ).rejects.toMatchObject({ code: "deadline_reached", exitCode: 10 });
    expect(shared.mock.requests.filter((r) => r.origin === "cdn")).toHaveLength(0);
    expect(readdirSync(dir).filter((f) => f.endsWith(".zip"))).toEqual([]);
    const written = JSON.parse(readFileSync(report, "utf8")) as {
      complete: boolean;
      error: { code: string };
      items: { status: string }[];
      summary: Record<string, number>;
    };
    expect(written.complete).toBe(false);
    // the sync's own summary, as a complete run has it
    expect(written.summary).toEqual({
      downloaded: 0,
      up_to_date: 0,
      failed: 0,
      filtered: 0,
      deferred: written.items.length,
    });
    expect(written.error.code).toBe("deadline_reached");
    // stopped before any item started: none is listed as settled otherwise than deferred
    expect(written.items.filter((i) => i.status !== "deferred")).toEqual([]);
    await expect(
      client().downloadAsset("free-sample-cube", { dir, maxDuration: new Date(0) }),
    ).rejects.toMatchObject({ code: "deadline_reached" });
    await expect(client().sync(dir, { maxDuration: "soon" })).rejects.toMatchObject({
      code: "invalid_max_duration",
    });
  });
});

/** Metric samples `name{status}` → value of a metrics file, through an exposition-format parser. */
function metricSamples(
  file: string,
  labels: { command: string; dir: string },
): Map<string, number> {
  const out = new Map<string, number>();
  for (const family of parsePrometheusTextFormat(readFileSync(file, "utf8"))) {
    for (const s of family.metrics) {
      expect({ command: s.labels?.command, dir: s.labels?.dir }).toEqual(labels);
      out.set(`${family.name}${s.labels?.status ? `{${s.labels.status}}` : ""}`, Number(s.value));
    }
  }
  return out;
}

describe("library: metrics, onItem and single-download reports (the CLI's run layer)", () => {
  it("sync: onItem gets each settled item in order; metrics as --metrics writes them", async () => {
    const dir = tempDir("svc-dl-lib-sinks-");
    const metrics = join(tempDir("svc-dl-lib-prom-"), "svc-dl.prom");
    const seen: Record<string, unknown>[] = [];
    const doc = await client().sync(dir, {
      metrics,
      onItem: async (item) => {
        await Promise.resolve();
        seen.push(item);
      },
    });
    expect(seen).toEqual(doc.items);
    const m = metricSamples(metrics, { command: "packs sync", dir });
    expect(m.get("svc_dl_items{downloaded}")).toBe(doc.items.length);
    expect(m.get("svc_dl_exit_code")).toBe(0);
    expect(m.get("svc_dl_bytes_downloaded")).toBe(doc.items.length * 64 * 1024);
    expect(m.get("svc_dl_last_success_timestamp_seconds")).toBe(
      m.get("svc_dl_last_run_timestamp_seconds"),
    );
  });

  it("a throwing onItem is a warning notice; the items still succeed", async () => {
    const notices: string[] = [];
    const c = createClient({
      baseUrl: shared.mock.baseUrl,
      apiKey: shared.mock.apiKey,
      onNotice: (line) => notices.push(line),
    });
    const project = tempDir("svc-dl-lib-hook-");
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "assets", assets: ["free-sample-cube"] }),
    );
    const doc = await c.install({
      cwd: project,
      onItem: () => {
        throw new Error("hook broke");
      },
    });
    expect(doc.items.map((i) => i.status)).toEqual(["downloaded"]);
    expect(notices).toEqual(["warning: hook broke (hook_failed)"]);
  });

  it("downloadAsset writes the one-item run document and metrics; a failure keeps its hint", async () => {
    const dir = tempDir("svc-dl-lib-one-");
    const report = join(dir, "report.json");
    const metrics = join(dir, "m.prom");
    const doc = await client().downloadAsset("free-sample-cube", { dir, report, metrics });
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual({
      items: [JSON.parse(JSON.stringify(doc))],
      summary: { downloaded: 1, up_to_date: 0, failed: 0 },
      complete: true,
    });
    expect(
      metricSamples(metrics, { command: "asset get", dir }).get("svc_dl_items{downloaded}"),
    ).toBe(1);

    const err: unknown = await client()
      .downloadPack("no-such-pack", { dir, report, metrics })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const { hint } = err as { hint: unknown };
    expect(err).toMatchObject({ code: "not_found", exitCode: 5 });
    const written = JSON.parse(readFileSync(report, "utf8"));
    expect(written).toMatchObject({ items: [], complete: false, error: { code: "not_found" } });
    expect(written.error.hint).toBe(hint);
    expect(typeof hint).toBe("string");
    const m = metricSamples(metrics, { command: "pack get", dir });
    expect(m.get("svc_dl_exit_code")).toBe(5);
  });
});

describe("library: a report or metrics file that cannot be written", () => {
  it("a call that succeeded rejects with the file's error (exit 8) once both files were tried", async () => {
    const dir = tempDir("svc-dl-lib-nowrite-");
    const report = join(dir, "report.json");
    mkdirSync(report); // a directory where the report goes
    const metrics = join(dir, "m.prom");
    const notices: string[] = [];
    const c = createClient({
      baseUrl: shared.mock.baseUrl,
      apiKey: shared.mock.apiKey,
      onNotice: (line) => notices.push(line),
    });
    await expect(
      c.downloadAsset("free-sample-cube", { dir, report, metrics }),
    ).rejects.toMatchObject({
      code: "unsafe_output_path",
      exitCode: 8,
      message: expect.stringContaining(report),
    });
    // the file itself is in place, and the metrics tell the exit code the call ended with
    expect(existsSync(join(dir, "free-sample-cube.glb"))).toBe(true);
    expect(metricSamples(metrics, { command: "asset get", dir }).get("svc_dl_exit_code")).toBe(8);
    expect(notices).toEqual([]);
  });

  it("a FIFO at metrics: sync rejects with unsafe_output_path, the FIFO untouched", async () => {
    const dir = tempDir("svc-dl-lib-fifo-");
    const metrics = join(tempDir("svc-dl-lib-fifo-prom-"), "svc-dl.prom");
    execFileSync("mkfifo", [metrics]);
    await expect(client().sync(dir, { metrics })).rejects.toMatchObject({
      code: "unsafe_output_path",
      exitCode: 8,
    });
    expect(lstatSync(metrics).isFIFO()).toBe(true);
  });

  it("a call that failed keeps its own error; the unwritable file is a warning notice", async () => {
    const dir = tempDir("svc-dl-lib-nowrite2-");
    const report = join(dir, "report.json");
    mkdirSync(report);
    const notices: string[] = [];
    const c = createClient({
      baseUrl: shared.mock.baseUrl,
      apiKey: shared.mock.apiKey,
      onNotice: (line) => notices.push(line),
    });
    await expect(c.downloadPack("no-such-pack", { dir, report })).rejects.toMatchObject({
      code: "not_found",
      exitCode: 5,
    });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(report);
    expect(notices[0]).toContain("(output_not_written)");
  });
});
