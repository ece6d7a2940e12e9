import { describe, expect, it } from "vitest";
import { defaultFixture } from "../../../src/mock-server/index.js";
import { runCli } from "../../helpers/cli.js";
import { useMockService } from "../../helpers/mock.js";

/** `svc-dl assets list` over real HTTP (cli-contract "assets list"). */

const EXTRA = 230;
const fixture = defaultFixture();
for (let i = 1; i <= EXTRA; i++) {
  fixture.assets.push({
    slug: `extra-asset-${String(i).padStart(3, "0")}`,
    name: `Extra ${i}`,
    pack: null,
    premium: i % 2 === 0,
  });
}
const published = fixture.assets.filter((a) => (a.availability ?? "published") === "published");

const shared = useMockService({ fixture });

const assetPages = () =>
  shared.mock.requests.filter((e) => e.origin === "api" && /^\/api\/v1\/assets(\?|$)/.test(e.url));

describe("svc-dl assets list", () => {
  it("--json: every page, the records exactly as received", async () => {
    const r = await runCli(["assets", "list", "--json"], { env: shared.env() });
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(records.map((a) => a.slug)).toEqual(published.map((a) => a.slug));
    expect(assetPages().length).toBe(Math.ceil(published.length / 100));
    // fields the spec does not show are kept as the service sent them
    const cube = records.find((a) => a.slug === "free-sample-cube");
    expect(cube).toMatchObject({ tier: "free", pack_slug: null, entitled: true });
    expect(cube?.preview_url).toBe(`${shared.mock.baseUrl}/previews/free-sample-cube.glb`);
    expect(cube?.download_url).toBe(
      `${shared.mock.baseUrl}/api/v1/assets/free-sample-cube/download`,
    );
  });

  it("prints a table: slug, free/premium, preview and download URLs", async () => {
    const r = await runCli(["assets", "list"], { env: shared.env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SLUG\s+TIER\s+PREVIEW URL\s+DOWNLOAD URL$/);
    expect(lines).toHaveLength(published.length + 1);
    const cube = lines.find((l) => l.startsWith("free-sample-cube "));
    expect(cube?.split(/\s+/)).toEqual([
      "free-sample-cube",
      "free",
      `${shared.mock.baseUrl}/previews/free-sample-cube.glb`,
      `${shared.mock.baseUrl}/api/v1/assets/free-sample-cube/download`,
    ]);
    expect(lines.find((l) => l.startsWith("extra-asset-002 "))?.split(/\s+/)[1]).toBe("premium");
  });

  it("stops on a pagination that never ends (exit 7)", async () => {
    shared.mock.set({ faults: { paginationLoop: true } });
    const r = await runCli(["assets", "list", "--json"], { env: shared.env() });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("broken_pagination");
  });

  it("asset errors point at assets list", async () => {
    const r = await runCli(["asset", "get", "no-such-asset", "-o", "-"], { env: shared.env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("svc-dl assets list");
  });
});
