import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ContainmentProblem,
  containedPath,
  containmentProblem,
  isInside,
} from "../../src/io/containment.js";

const refuse = (p: ContainmentProblem) => new Error(`refused: ${p}`);

describe("containmentProblem (cli-contract: a path from outside stays inside its root)", () => {
  it.each([
    ["", "empty"],
    ["/etc", "absolute"],
    ["\\\\server\\share", "absolute"],
    ["C:\\x", "drive letter"],
    ["c:x", "drive letter"],
    ["..", "climbs out"],
    ["../outside", "climbs out"],
    ["a/../../b", "climbs out"],
    ["a\\..\\..\\b", "climbs out"],
    ["a\u0000b", "control character"],
  ])("refuses %j (%s)", (rel, problem) => {
    expect(containmentProblem(rel)).toBe(problem);
  });

  it.each(["vendor", "vendor/assets", "./vendor", "a/../b", "a/./b/"])("accepts %j", (rel) => {
    expect(containmentProblem(rel)).toBeUndefined();
  });
});

describe("containedPath", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-dl-contain-"));

  it("joins an accepted path to the root", () => {
    expect(containedPath(root, "vendor/assets", refuse)).toBe(resolve(root, "vendor/assets"));
  });

  it("throws the caller's error for a path that climbs out", () => {
    expect(() => containedPath(root, "../x", refuse)).toThrow("refused: climbs out");
  });

  it("refuses a symlink on the way only when asked", () => {
    mkdirSync(join(root, "real"));
    symlinkSync(tmpdir(), join(root, "link"));
    expect(containedPath(root, "link/x", refuse)).toBe(resolve(root, "link/x"));
    expect(() => containedPath(root, "link/x", refuse, { noSymlinks: true })).toThrow(
      "refused: symlink on the way",
    );
    expect(containedPath(root, "real/new/deeper", refuse, { noSymlinks: true })).toBe(
      resolve(root, "real/new/deeper"),
    );
  });

  it("with noEscapingSymlinks, refuses a link on the way that leads out, not one that stays inside", () => {
    const base = mkdtempSync(join(tmpdir(), "svc-dl-contain-esc-"));
    mkdirSync(join(base, "inside", "deep"), { recursive: true });
    symlinkSync(tmpdir(), join(base, "out"));
    symlinkSync(join(base, "inside"), join(base, "in"));
    symlinkSync(join(base, "missing"), join(base, "dangling"));
    const esc = { noEscapingSymlinks: true };
    expect(() => containedPath(base, "out", refuse, esc)).toThrow("refused: symlink on the way");
    expect(() => containedPath(base, "out/new/x", refuse, esc)).toThrow(
      "refused: symlink on the way",
    );
    expect(() => containedPath(base, "dangling/x", refuse, esc)).toThrow(
      "refused: symlink on the way",
    );
    expect(containedPath(base, "in/deep", refuse, esc)).toBe(resolve(base, "in/deep"));
    expect(containedPath(base, "inside/new/x", refuse, esc)).toBe(resolve(base, "inside/new/x"));
    expect(containedPath(join(base, "not-yet"), "a/b", refuse, esc)).toBe(
      resolve(base, "not-yet/a/b"),
    );
  });

  it("isInside tells a path below the root from one beside it", () => {
    expect(isInside(root, join(root, "a"))).toBe(true);
    expect(isInside(root, root)).toBe(true);
    expect(isInside(root, `${root}-other`)).toBe(false);
  });
});
