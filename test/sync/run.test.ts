import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { progressFor } from "../../src/library/progress.js";
import { runSync } from "../../src/sync/run.js";
import { STUB_API, stubClient, useMockAgent } from "../helpers/mock-agent.js";

// runSync asks for each pack's download through src/api/ (the pack catalog and
// download-source), as `pack get` and `install` do.
const agent = useMockAgent();
const JSON_HEADERS = { headers: { "content-type": "application/json" } };

describe("runSync", () => {
  it("requests a pack record's relative download URL resolved against the base URL", async () => {
    const forest = {
      slug: "forest",
      name: "Forest",
      description: "",
      asset_count: 1,
      categories: [],
      purchased_at: "2026-01-01T00:00:00Z",
      order_id: "ord_1",
      downloads: { bundle: "/files/forest.zip" },
    };
    const page = { limit: 100, offset: 0, total: 1, has_more: false, next_cursor: null };
    agent()
      .get(STUB_API)
      .intercept({ path: /^\/api\/v1\/packs\?/, method: "GET" })
      .reply(200, { data: [forest], pagination: page }, JSON_HEADERS);
    // the resolved URL is asked (an unused stub fails the test); its answer fails the item
    agent()
      .get(STUB_API)
      .intercept({ path: "/files/forest.zip", method: "GET" })
      .reply(404, { error: { code: "not_found", message: "no such file" } }, JSON_HEADERS);
    const dir = mkdtempSync(join(tmpdir(), "svc-dl-sync-run-"));
    const doc = await runSync(
      stubClient(agent()),
      { dir, edition: "standard", refresh: false, dryRun: false },
      progressFor(undefined),
    );
    expect(doc.items.map((i) => [i.slug, i.status, i.error?.code])).toEqual([
      ["forest", "failed", "not_found"],
    ]);
  });
});
