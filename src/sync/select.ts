import picomatch from "picomatch";
import type { Pack } from "../api/schemas.js";

/** `packs sync` selection flags (cli-contract "packs sync", Selection). Empty lists select everything. */
export interface Selection {
  /** `--include GLOB`...: a pack is taken when its slug matches one of them (or none is given). */
  include: readonly string[];
  /** `--exclude GLOB`...: a pack whose slug matches one of them is left out (exclude wins). */
  exclude: readonly string[];
  /** `--category NAME`...: a pack is taken when it has one of them (case-insensitive). */
  categories: readonly string[];
}

/** What a selection did to the owned packs. */
export interface SelectionResult {
  /** The packs taken, in list order. */
  kept: Pack[];
  /** The slugs left out, in list order (counted in `summary.filtered`). */
  left: string[];
  /** One line per pattern or category that matches no owned pack (a warning, not a failure). */
  warnings: string[];
}

/** Whether any selection flag was given. */
export function hasSelection(selection: Selection): boolean {
  return (
    selection.include.length > 0 || selection.exclude.length > 0 || selection.categories.length > 0
  );
}

/**
 * Shell-style glob matcher over a whole slug: `*`, `?` and `[…]` (`[!…]` negates a class),
 * case-sensitive. Braces, extglobs and a leading `!` are literal, as in a shell's pattern
 * match (picomatch with `nobrace`, `noextglob`, `nonegate`); `*` also matches a leading dot.
 */
function matcher(glob: string): (slug: string) => boolean {
  // picomatch reads `[!…]` as a class holding "!"; the shell's negated class is its `[^…]`
  const pattern = glob.replace(/\[!/g, "[^");
  return picomatch(pattern, { nobrace: true, noextglob: true, nonegate: true, dot: true });
}

/**
 * Applies `--include`, `--exclude` and `--category` to the owned packs (cli-contract
 * "packs sync", Selection): a pack is kept when its slug matches some include glob (or none
 * is given), matches no exclude glob, and has one of the categories (compared
 * case-insensitively; any category when none is given). A slug listed twice is judged once.
 * Pure: no I/O. Returns the kept packs, the slugs left out, and a warning for each glob or
 * category that matches no owned pack.
 */
export function selectPacks(packs: readonly Pack[], selection: Selection): SelectionResult {
  const include = selection.include.map((g) => ({ g, test: matcher(g), hits: 0 }));
  const exclude = selection.exclude.map((g) => ({ g, test: matcher(g), hits: 0 }));
  const categories = selection.categories.map((c) => ({ c, key: c.toLowerCase(), hits: 0 }));
  const kept: Pack[] = [];
  const left: string[] = [];
  const seen = new Set<string>();
  for (const pack of packs) {
    if (seen.has(pack.slug)) continue;
    seen.add(pack.slug);
    const owned = new Set(pack.categories.map((c) => c.toLowerCase()));
    let included = include.length === 0;
    for (const m of include) {
      if (m.test(pack.slug)) {
        m.hits += 1;
        included = true;
      }
    }
    let excluded = false;
    for (const m of exclude) {
      if (m.test(pack.slug)) {
        m.hits += 1;
        excluded = true;
      }
    }
    let inCategory = categories.length === 0;
    for (const c of categories) {
      if (owned.has(c.key)) {
        c.hits += 1;
        inCategory = true;
      }
    }
    if (included && !excluded && inCategory) kept.push(pack);
    else left.push(pack.slug);
  }
  const warnings = [
    ...include.filter((m) => m.hits === 0).map((m) => `--include ${m.g} matches no pack you own`),
    ...exclude.filter((m) => m.hits === 0).map((m) => `--exclude ${m.g} matches no pack you own`),
    ...categories
      .filter((c) => c.hits === 0)
      .map((c) => `--category ${c.c} matches no pack you own`),
  ];
  return { kept, left, warnings };
}
