import { describe, expect, it } from "vitest";
import { assetSource, packSource, routeSource } from "../../src/api/download-source.js";
import { legacySource } from "../../src/api/legacy-download.js";
import { packCatalog } from "../../src/api/pack-catalog.js";
import type { Pack } from "../../src/api/schemas.js";
import { ResponseError } from "../../src/errors/response-error.js";
import type { HttpClient } from "../../src/http/client.js";
import { STUB_API, stubClient, useMockAgent } from "../helpers/mock-agent.js";

// Every download route is written once (src/api/); the pack listing is asked once per run.
const API = STUB_API;
const agent = useMockAgent();

const client = (): HttpClient => stubClient(agent());

function pack(slug: string, downloads: Pack["downloads"]): Pack {
  return {
    slug,
    name: slug,
    description: "",
    asset_count: 1,
    categories: [],
    purchased_at: "2026-01-01T00:00:00Z",
    order_id: "ord_1",
    downloads,
  };
}

describe("pack sources", () => {
  it("lists the packs once for every pack of the run and uses the record's URLs", async () => {
    const data = [
      pack("forest", {
        bundle: "https://cdn.example/forest.zip",
        authoring: "/files/forest-a.zip",
      }),
    ];
    agent()
      .get(API)
      .intercept({ path: /^\/api\/v1\/packs\?/, method: "GET" })
      .reply(
        200,
        {
          data,
          pagination: { limit: 100, offset: 0, total: 1, has_more: false, next_cursor: null },
        },
        {
          headers: { "content-type": "application/json" },
        },
      )
      .times(1);
    const c = client();
    const catalog = packCatalog(c);
    const [standard, authoring, unowned] = await Promise.all([
      packSource(c, catalog, "forest", "standard"),
      packSource(c, catalog, "forest", "authoring"),
      packSource(c, catalog, "desert pack", "authoring"),
    ]);
    expect(standard.url.href).toBe("https://cdn.example/forest.zip");
    expect(authoring.url.href).toBe(`${API}/files/forest-a.zip`);
    // not owned: the API route, so the service answers with its own error
    expect(unowned.url.href).toBe(`${API}/api/v1/packs/desert%20pack/download?edition=authoring`);
    expect((await catalog.packs()).map((p) => p.slug)).toEqual(["forest"]);
  });

  it("refuses a record URL that is not a URL (exit 7)", async () => {
    const catalog = {
      packs: async () => [],
      listing: async () => ({ items: [], inconsistency: undefined }),
      find: async () => pack("x", { bundle: "http://[" }),
    };
    await expect(packSource(client(), catalog, "x", "standard")).rejects.toBeInstanceOf(
      ResponseError,
    );
  });
});

describe("item routes", () => {
  it("asset and repair routes", () => {
    const c = client();
    expect(assetSource(c, "a/b").url.href).toBe(`${API}/api/v1/assets/a%2Fb/download`);
    expect(routeSource(c, { kind: "pack", slug: "p", edition: null }).url.href).toBe(
      `${API}/api/v1/packs/p/download`,
    );
    expect(routeSource(c, { kind: "pack", slug: "p", edition: "authoring" }).url.href).toBe(
      `${API}/api/v1/packs/p/download?edition=authoring`,
    );
  });

  it("legacy: POST /api/download with the license key in a JSON body, no API key", () => {
    const src = legacySource(client(), {
      licenseKey: "LK",
      kind: "pack",
      slug: "forest",
      edition: "authoring",
    });
    expect(src.url.href).toBe(`${API}/api/download`);
    expect(src.method).toBe("POST");
    expect(src.authenticate).toBe(false);
    expect(JSON.parse(src.body ?? "")).toEqual({
      licenseKey: "LK",
      packSlug: "forest",
      edition: "authoring",
    });
    const asset = legacySource(client(), {
      licenseKey: "LK",
      kind: "asset",
      slug: "a",
      edition: null,
    });
    expect(JSON.parse(asset.body ?? "")).toEqual({ licenseKey: "LK", assetSlug: "a" });
  });
});
