import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../../src/mock-server/index.js";
import type { MockService } from "../../../src/mock-server/types.js";
import { runCli } from "../../helpers/cli.js";

let mock: MockService;
let env: Record<string, string>;
beforeAll(async () => {
  // 130 extra owned packs: more than one page of 100.
  mock = await startMockService({ quiet: true, extraPacks: 130 });
  env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
});
afterAll(async () => {
  await mock.close();
});

function listRequests(): string[] {
  return mock.requests
    .filter((e) => e.url.startsWith("/api/v1/packs?") || e.url === "/api/v1/packs")
    .map((e) => e.url);
}

describe("svc-dl packs list", () => {
  it("--json follows every page (page size 100) and prints the Pack objects as received", async () => {
    mock.clearLog();
    const r = await runCli(["packs", "list", "--json"], { env });
    expect(r.code).toBe(0);
    const packs = JSON.parse(r.stdout) as { slug: string; downloads: { bundle: string } }[];
    const me = await fetch(`${mock.baseUrl}/api/v1/me`, {
      headers: { authorization: `Bearer ${mock.apiKey}` },
    });
    const total = ((await me.json()) as { data: { entitlements: { pack_count: number } } }).data
      .entitlements.pack_count;
    expect(packs.length).toBe(total);
    expect(new Set(packs.map((p) => p.slug)).size).toBe(packs.length);
    expect(packs[0]?.downloads.bundle).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const urls = listRequests();
    expect(urls.length).toBe(Math.ceil(total / 100));
    expect(urls[0]).toContain("limit=100");
  });

  it("--limit N stops after N packs", async () => {
    mock.clearLog();
    const r = await runCli(["packs", "list", "--json", "--limit", "3"], { env });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(3);
    expect(listRequests().length).toBe(1);
  });

  it("prints a table with slug, name, assets and purchase date for humans", async () => {
    const r = await runCli(["packs", "list", "--limit", "2"], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+ASSETS\s+PURCHASED$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/\d{4}-\d{2}-\d{2}$/);
  });

  it("stops with exit 7 on a pagination that never ends", async () => {
    mock.set({ faults: { paginationLoop: true } });
    try {
      const r = await runCli(["packs", "list", "--json"], { env });
      expect(r.code).toBe(7);
      expect(r.stderr).toContain("broken_pagination");
      expect(listRequests().length).toBeLessThan(10);
    } finally {
      mock.set({ faults: {} });
    }
  });

  it("rejects --limit 0 as a usage error", async () => {
    const r = await runCli(["packs", "list", "--limit", "0"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage_error");
  });
});
