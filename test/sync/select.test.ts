import { describe, expect, it } from "vitest";
import type { Pack } from "../../src/api/schemas.js";
import { hasSelection, selectPacks } from "../../src/sync/select.js";

function pack(slug: string, categories: string[] = []): Pack {
  return {
    slug,
    name: slug,
    description: "",
    asset_count: 1,
    categories,
    purchased_at: "2025-01-01T00:00:00.000Z",
    order_id: "ord_1",
    downloads: { bundle: `https://x.test/${slug}` },
  } as Pack;
}

const PACKS = [
  pack("forest-pines", ["Nature", "low-poly"]),
  pack("forest-oaks", ["nature"]),
  pack("desert-rocks", ["nature", "photoscan"]),
  pack("sci-fi-props", ["sci-fi"]),
  pack("Forest-Upper", ["misc"]),
];
const none = { include: [], exclude: [], categories: [] };
const slugs = (r: { kept: Pack[] }) => r.kept.map((p) => p.slug);

describe("selectPacks", () => {
  it("keeps everything without flags", () => {
    const r = selectPacks(PACKS, none);
    expect(slugs(r)).toEqual(PACKS.map((p) => p.slug));
    expect(r.left).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(hasSelection(none)).toBe(false);
  });

  it("--include matches the whole slug, case-sensitively", () => {
    const r = selectPacks(PACKS, { ...none, include: ["forest-*"] });
    expect(slugs(r)).toEqual(["forest-pines", "forest-oaks"]);
    expect(r.left).toEqual(["desert-rocks", "sci-fi-props", "Forest-Upper"]);
    expect(slugs(selectPacks(PACKS, { ...none, include: ["forest"] }))).toEqual([]);
    expect(slugs(selectPacks(PACKS, { ...none, include: ["*rocks"] }))).toEqual(["desert-rocks"]);
  });

  it("supports ?, […] and [!…] and several includes", () => {
    expect(slugs(selectPacks(PACKS, { ...none, include: ["forest-oak?"] }))).toEqual([
      "forest-oaks",
    ]);
    expect(slugs(selectPacks(PACKS, { ...none, include: ["[ds]*"] }))).toEqual([
      "desert-rocks",
      "sci-fi-props",
    ]);
    expect(slugs(selectPacks(PACKS, { ...none, include: ["[!fds]*"] }))).toEqual(["Forest-Upper"]);
    expect(slugs(selectPacks(PACKS, { ...none, include: ["desert-*", "sci-*"] }))).toEqual([
      "desert-rocks",
      "sci-fi-props",
    ]);
  });

  it("exclude wins over include", () => {
    const r = selectPacks(PACKS, { ...none, include: ["forest-*"], exclude: ["*-oaks"] });
    expect(slugs(r)).toEqual(["forest-pines"]);
  });

  it("braces and a leading ! are literal", () => {
    expect(slugs(selectPacks(PACKS, { ...none, include: ["{forest,desert}-*"] }))).toEqual([]);
    expect(slugs(selectPacks(PACKS, { ...none, exclude: ["!forest-oaks"] }))).toHaveLength(5);
  });

  it("--category keeps packs with any named category, case-insensitively", () => {
    const r = selectPacks(PACKS, { ...none, categories: ["NATURE"] });
    expect(slugs(r)).toEqual(["forest-pines", "forest-oaks", "desert-rocks"]);
    const two = selectPacks(PACKS, { ...none, categories: ["sci-fi", "Low-Poly"] });
    expect(slugs(two)).toEqual(["forest-pines", "sci-fi-props"]);
  });

  it("combines globs and categories", () => {
    const r = selectPacks(PACKS, {
      include: ["*-*"],
      exclude: ["forest-pines"],
      categories: ["nature"],
    });
    expect(slugs(r)).toEqual(["forest-oaks", "desert-rocks"]);
  });

  it("warns about each pattern or category that matches nothing owned", () => {
    const r = selectPacks(PACKS, {
      include: ["nope-*", "forest-*"],
      exclude: ["zzz"],
      categories: ["space"],
    });
    expect(r.kept).toEqual([]);
    expect(r.warnings).toEqual([
      "--include nope-* matches no pack you own",
      "--exclude zzz matches no pack you own",
      "--category space matches no pack you own",
    ]);
  });

  it("judges a slug listed twice once", () => {
    const r = selectPacks([...PACKS, pack("desert-rocks")], { ...none, include: ["forest-*"] });
    expect(r.left.filter((s) => s === "desert-rocks")).toHaveLength(1);
  });
});
