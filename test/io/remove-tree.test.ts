import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "../../src/io/remove-tree.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-dl-rmtree-"));
});
afterEach(() => {
  removeTree(root);
});

/** Makes a chain of folders `a/a/a/…` under `base` as deep as the system allows, up to `levels`. */
function deepChain(base: string, levels: number): number {
  let at = base;
  mkdirSync(at);
  for (let i = 0; i < levels; i++) {
    at = join(at, "a");
    try {
      mkdirSync(at);
    } catch {
      return i; // ENAMETOOLONG: as deep as an absolute path can reach
    }
  }
  writeFileSync(join(at, "..", "leaf.txt"), "x");
  return levels;
}

describe("removeTree", () => {
  it("removes a tree deeper than its path budget (folders moved up), iteratively", () => {
    const tree = join(root, "deep");
    // 800 levels: 1,600 bytes of path, past the 1,024-byte budget (the 2,000-level case that
    // overflows fs.rmSync is in test/extract/extract.e2e.test.ts)
    expect(deepChain(tree, 800)).toBe(800);
    removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  it("removes links without following them: what they point to is untouched", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "keep.txt"), "mine");
    const tree = join(root, "tree");
    mkdirSync(join(tree, "sub"), { recursive: true });
    symlinkSync(outside, join(tree, "sub", "to-dir"));
    symlinkSync(join(outside, "keep.txt"), join(tree, "to-file"));
    writeFileSync(join(tree, "sub", "f.txt"), "x");
    removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("mine");
  });

  it("a link in place of the tree is removed, not followed; a missing path is not an error", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "keep.txt"), "mine");
    symlinkSync(outside, join(root, "link"));
    removeTree(join(root, "link"));
    expect(readdirSync(root)).toEqual(["outside"]);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("mine");
    expect(() => removeTree(join(root, "missing"))).not.toThrow();
  });

  it("a folder it moves up never clashes with an existing name", () => {
    const tree = join(root, "long");
    // 12 levels of 200-byte names: past the 1,024-byte budget, so folders get moved up
    const deepest = join(tree, ...Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(200, "x")));
    mkdirSync(deepest, { recursive: true });
    writeFileSync(join(deepest, "f"), "x");
    mkdirSync(join(tree, ".rm-0"));
    writeFileSync(join(tree, ".rm-0", "f"), "x");
    removeTree(tree);
    expect(existsSync(tree)).toBe(false);
  });
});
