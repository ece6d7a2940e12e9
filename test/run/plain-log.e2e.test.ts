import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { localIsoTime } from "../../src/run/log-time.js";
import { runCli } from "../helpers/cli.js";
import { manualClock } from "../helpers/clock.js";
import { tempDir } from "../helpers/files.js";

/** Plain logs carry time (cli-contract "Operating unattended"); --refresh says why it fetched. */

let mock: MockService;
let env: Record<string, string>;
const savedTz = process.env.TZ;

beforeAll(async () => {
  mock = await startMockService({
    quiet: true,
    packSize: 8 * 1024,
    limits: { download: { quota: 1000, windowSeconds: 60 } },
  });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
});
afterAll(async () => {
  await mock.close();
});
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

describe("plain logs", () => {
  it("a run without a terminal begins with a header; each line starts with HH:MM:SS from the clock", async () => {
    process.env.TZ = "Asia/Kolkata"; // +05:30: the offset and local hours are visible
    const clock = manualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    const r = await runCli(["packs", "sync", tempDir()], { env, clock });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^svc-dl \d+\.\d+\.\d+\S* packs sync started 2026-01-02T08:34:05\+05:30$/,
    );
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines.slice(1)) expect(line).toMatch(/^08:\d\d:\d\d \S/);
    expect(r.stderr).toContain("08:34:05 pack 1/");
  });

  it("install and several-slug gets have the header too; --json leaves stderr alone", async () => {
    const dir = tempDir();
    const g = await runCli(["asset", "get", "free-sample-cube", "oak-tree", "-o", `${dir}/`], {
      env,
    });
    expect(g.stderr.split("\n")[0]).toMatch(/^svc-dl \S+ asset get started \d{4}-/);
    const j = await runCli(["packs", "sync", tempDir(), "--json"], { env });
    expect(j.code).toBe(0);
    expect(j.stderr).toBe("");
  });

  it("localIsoTime writes the offset of the local zone, negative and zero ones too", () => {
    const t = Date.UTC(2026, 5, 30, 23, 59, 59);
    process.env.TZ = "America/St_Johns"; // -02:30 in summer
    expect(localIsoTime(t)).toBe("2026-06-30T21:29:59-02:30");
    process.env.TZ = "UTC";
    expect(localIsoTime(t)).toBe("2026-06-30T23:59:59+00:00");
  });

  it("--refresh logs why a pack is fetched again (changed upstream)", async () => {
    const dir = tempDir();
    expect((await runCli(["packs", "sync", dir], { env })).code).toBe(0);
    const list = await runCli(["packs", "list", "--json"], { env });
    const slug = (JSON.parse(list.stdout) as { slug: string }[])[0]?.slug ?? "";
    mock.bumpPackVersion(slug);
    const r = await runCli(["packs", "sync", dir, "--refresh"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`${slug} \\(standard\\): changed upstream, downloaded`));
  });
});
