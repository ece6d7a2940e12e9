import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./files.js";
import { removeStaleRoots } from "./temp-root.js";

describe("the test run's temp root", () => {
  it("the suite runs under its own svc-dl-run-* directory", () => {
    expect(tempDir()).toMatch(/[/\\]svc-dl-run-[^/\\]+[/\\]svc-dl-test-/);
  });

  it("a killed run's root untouched for 6 hours is removed; a live one, and others, are kept", () => {
    const parent = tempDir();
    const now = Date.now();
    const old = new Date(now - 7 * 60 * 60 * 1000);
    for (const name of ["svc-dl-run-killed", "svc-dl-run-live", "someone-else"]) {
      mkdirSync(join(parent, name));
      writeFileSync(join(parent, name, "f"), "x");
    }
    writeFileSync(join(parent, "svc-dl-run-file"), "x");
    utimesSync(join(parent, "svc-dl-run-killed"), old, old);
    utimesSync(join(parent, "someone-else"), old, old);
    utimesSync(join(parent, "svc-dl-run-file"), old, old);
    removeStaleRoots(parent, now);
    expect(existsSync(join(parent, "svc-dl-run-killed"))).toBe(false);
    expect(existsSync(join(parent, "svc-dl-run-live", "f"))).toBe(true);
    expect(existsSync(join(parent, "someone-else", "f"))).toBe(true);
    expect(existsSync(join(parent, "svc-dl-run-file"))).toBe(true);
  });
});
