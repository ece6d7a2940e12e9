import { describe, expect, it } from "vitest";
import type { Pack } from "../../src/api/schemas.js";
import type { EditionChoice, PackEdition } from "../../src/model.js";
import { syncTargets } from "../../src/sync/targets.js";

/**
 * syncTargets (cli-contract "packs sync": `--edition standard|authoring|all`; spec "Pack":
 * clients use the URLs in `downloads` as given).
 */

function pack(slug: string, authoring?: string): Pack {
  return {
    slug,
    name: slug,
    description: "",
    asset_count: 1,
    categories: [],
    purchased_at: "2025-01-01T00:00:00.000Z",
    order_id: "ord_1",
    downloads: {
      bundle: `https://cdn.test/b/${slug}.zip?sig=S1`,
      ...(authoring !== undefined ? { authoring } : {}),
    },
  };
}

const FOREST = pack("forest", "https://cdn.test/a/forest-authoring.zip?sig=A1");
const DESERT = pack("desert");
const STD_FOREST = { slug: "forest", edition: "standard", url: FOREST.downloads.bundle };
const AUTH_FOREST = { slug: "forest", edition: "authoring", url: FOREST.downloads.authoring };
const STD_DESERT = { slug: "desert", edition: "standard", url: DESERT.downloads.bundle };
const AUTH_DESERT = { slug: "desert", edition: "authoring", url: undefined };

describe("syncTargets", () => {
  it.each<[EditionChoice, object[]]>([
    ["standard", [STD_FOREST, STD_DESERT]],
    ["authoring", [AUTH_FOREST, AUTH_DESERT]],
    ["all", [STD_FOREST, AUTH_FOREST, STD_DESERT, AUTH_DESERT]],
  ])("--edition %s: the editions of every pack, in list order", (choice, expected) => {
    expect(syncTargets([FOREST, DESERT], choice)).toEqual(expected);
  });

  it.each<EditionChoice>(["standard", "authoring", "all"])(
    "no packs, no targets (--edition %s)",
    (choice) => {
      expect(syncTargets([], choice)).toEqual([]);
    },
  );

  it("a pack without downloads.authoring still has an authoring target, with no URL", () => {
    const [t] = syncTargets([DESERT], "authoring");
    expect(t).toEqual({ slug: "desert", edition: "authoring", url: undefined });
  });

  it("the record's URLs are used exactly as given", () => {
    const odd = pack(
      "Odd_Pack",
      "https://CDN.test:8443/x/../Odd%20Pack-authoring.ZIP?X-Sig=a%2Fb&exp=1#frag",
    );
    odd.downloads.bundle = "http://127.0.0.1:9/odd pack.zip?token=ä";
    const urls = syncTargets([odd], "all").map((t) => t.url);
    expect(urls).toEqual([odd.downloads.bundle, odd.downloads.authoring]);
  });

  it.each<[EditionChoice, PackEdition[]]>([
    ["standard", ["standard"]],
    ["authoring", ["authoring"]],
    ["all", ["standard", "authoring"]],
  ])(
    "a slug listed twice is looked after once, from its first record (--edition %s)",
    (choice, editions) => {
      const again = pack("forest", "https://cdn.test/other-authoring.zip");
      again.downloads.bundle = "https://cdn.test/other.zip";
      const targets = syncTargets([FOREST, DESERT, again], choice);
      const forest = targets.filter((t) => t.slug === "forest");
      expect(forest.map((t) => t.edition)).toEqual(editions);
      expect(forest.map((t) => t.url)).toEqual(
        editions.map((e) =>
          e === "standard" ? FOREST.downloads.bundle : FOREST.downloads.authoring,
        ),
      );
      expect(targets.map((t) => t.slug)).toEqual([
        ...editions.map(() => "forest"),
        ...editions.map(() => "desert"),
      ]);
    },
  );

  it("does not modify the pack list", () => {
    const packs = [FOREST, DESERT, FOREST];
    const copy = structuredClone(packs);
    syncTargets(packs, "all");
    expect(packs).toEqual(copy);
  });
});
