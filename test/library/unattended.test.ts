import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { operationPacing } from "../../src/library/unattended.js";
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

  it("limitRate becomes the HTTP client's transfer pacing, in bytes per second", async () => {
    expect(operationPacing({ limitRate: "5M" }, undefined).http.transferPacing).toMatchObject({
      rateBytesPerSecond: 5 * 1024 ** 2,
    });
    expect(operationPacing({ limitRate: 65536 }, undefined).http.transferPacing).toMatchObject({
      rateBytesPerSecond: 65536,
    });
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
