import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ensureOwnedDirs,
  findForeign,
  type OwnedLayout,
  openOwnedDir,
  ownedPath,
  removeOwned,
} from "../../src/io/owned-dir.js";

/** A toy layout: MARK, `data/` and files named `*.bin` in it. */
const LAYOUT: OwnedLayout = {
  marker: "MARK",
  markerText: "Signature: toy\n",
  signature: "Signature: toy",
  kind: (path) =>
    path[0] !== "data"
      ? undefined
      : path.length === 1
        ? "dir"
        : path.length === 2 && path[1]?.endsWith(".bin")
          ? "file"
          : undefined,
};
const refusals = {
  unsafe: (path: string, problem: string) => new Error(`unsafe ${path} ${problem}`),
  foreign: (entry: string, why: string) => new Error(`foreign ${entry}: ${why}`),
};
const temp = () => mkdtempSync(join(tmpdir(), "svc-dl-owned-"));

describe("owned directories", () => {
  it("creates a missing root with mode 0700 and a whole marker; reopening finds it", () => {
    const root = join(temp(), "a", "b");
    expect(openOwnedDir(root, LAYOUT, refusals)).toBe(true);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(readdirSync(root)).toEqual(["MARK"]);
    expect(readFileSync(join(root, "MARK"), "utf8")).toBe(LAYOUT.markerText);
    expect(openOwnedDir(root, LAYOUT, refusals)).toBe(false);
  });

  it("adopts an empty root (or one holding only a marker being written) without re-moding it", () => {
    const root = temp();
    chmodSync(root, 0o711);
    writeFileSync(join(root, ".MARK.0123456789abcdef.tmp"), "Signa");
    openOwnedDir(root, LAYOUT, refusals);
    expect(statSync(root).mode & 0o777).toBe(0o711);
    expect(readFileSync(join(root, "MARK"), "utf8")).toBe(LAYOUT.markerText);
  });

  it("refuses an unmarked root with anything in it, and a marker that is a symlink", () => {
    const root = temp();
    writeFileSync(join(root, "b.txt"), "x");
    writeFileSync(join(root, "a.txt"), "x");
    expect(() => openOwnedDir(root, LAYOUT, refusals)).toThrow(/foreign a\.txt/);
    expect(findForeign(root, LAYOUT)?.entry).toBe("a.txt");

    const linked = temp();
    const real = join(temp(), "MARK");
    writeFileSync(real, LAYOUT.markerText);
    symlinkSync(real, join(linked, "MARK"));
    expect(() => openOwnedDir(linked, LAYOUT, refusals)).toThrow(/foreign MARK/);
  });

  it("removes only the layout's names and keeps the marker; refuses when anything else is there", () => {
    const root = temp();
    openOwnedDir(root, LAYOUT, refusals);
    ensureOwnedDirs(root, ["data"], refusals);
    writeFileSync(join(root, "data", "1.bin"), "x");
    writeFileSync(join(root, "data", "2.bin"), "x");
    writeFileSync(join(root, "data", "keep.txt"), "mine");
    expect(() => removeOwned(root, LAYOUT, refusals, () => true)).toThrow(
      /foreign data\/keep\.txt/,
    );
    expect(readdirSync(join(root, "data")).sort()).toEqual(["1.bin", "2.bin", "keep.txt"]);
    const other = temp();
    writeFileSync(join(other, "3.bin"), "theirs");
    // a symlink is never ours, even with a name the layout gives
    symlinkSync(join(other, "3.bin"), join(root, "data", "3.bin"));
    expect(findForeign(root, LAYOUT)?.why).toMatch(/symbolic link/);
  });

  it("removes the layout bottom-up and counts what `counts` accepts", () => {
    const root = temp();
    openOwnedDir(root, LAYOUT, refusals);
    ensureOwnedDirs(root, ["data"], refusals);
    writeFileSync(join(root, "data", "1.bin"), "x");
    writeFileSync(join(root, "data", "2.bin"), "x");
    expect(removeOwned(root, LAYOUT, refusals, (p) => p[0] === "data")).toBe(2);
    expect(readdirSync(root)).toEqual(["MARK"]);
  });

  it("never goes through a symlink below the root", () => {
    const root = temp();
    openOwnedDir(root, LAYOUT, refusals);
    const outside = temp();
    mkdirSync(join(outside, "data"));
    symlinkSync(join(outside, "data"), join(root, "data"));
    expect(() => ensureOwnedDirs(root, ["data"], refusals)).toThrow(/unsafe .*symbolic link/);
    expect(() => openOwnedDir(root, LAYOUT, refusals)).toThrow(/unsafe/);
    expect(ownedPath(root, ["data", "1.bin"])).toBeUndefined();
    expect(ownedPath(root, ["other", "1.bin"])).toBe(join(root, "other", "1.bin"));
  });
});
