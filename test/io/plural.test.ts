import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { counted } from "../../src/io/plural.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** Nouns svc-dl prints after a count. */
const NOUNS = "files|packs|items|assets|entries|records|days|editions|slugs|locks|changes|checks";

/** A count printed straight before a plural noun (`${n} files`): "1 files" when n is 1. */
const FIXED_PLURAL = new RegExp(`\\$\\{[^}]+\\} (?:[a-z]+ )?(?:${NOUNS})\\b`, "g");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "mock-server" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("counts in human lines", () => {
  it("take the noun's number from the count", () => {
    expect(counted(1, "file")).toBe("1 file");
    expect(counted(0, "file")).toBe("0 files");
    expect(counted(2, "entry", "entries")).toBe("2 entries");
  });

  it("no message of svc-dl prints a count before a noun fixed in the plural", () => {
    const found = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(FIXED_PLURAL)].map(
        (m) => `${relative(SRC, file)}: ${m[0]}`,
      ),
    );
    expect(found).toEqual([]);
    const sample = ["`$", "{n} pack files`"].join("");
    expect(sample.match(FIXED_PLURAL)).toEqual([sample.slice(1, -1)]);
  });
});
