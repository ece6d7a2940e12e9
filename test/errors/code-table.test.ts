import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CODES } from "../../src/errors/codes.js";

/**
 * The error table (src/errors/codes.ts) is the union of its row files in
 * src/errors/code-table/: each `*-rows.ts` exports one object of rows. The table joins them by
 * spreading, where a code in two files would silently keep only the later row; so no code is in
 * two row files, and every row of every file is in the table.
 */

const dirUrl = new URL("../../src/errors/code-table/", import.meta.url);
const rowFiles = readdirSync(fileURLToPath(dirUrl))
  .filter((name) => name.endsWith("-rows.ts"))
  .sort();

/** Each row file's codes, from the objects it exports. */
async function codesByFile(): Promise<Map<string, string[]>> {
  const byFile = new Map<string, string[]>();
  for (const name of rowFiles) {
    const module: Record<string, unknown> = await import(new URL(name, dirUrl).href);
    const rows = Object.values(module).filter((v) => typeof v === "object" && v !== null);
    byFile.set(
      name,
      rows.flatMap((row) => Object.keys(row as object)),
    );
  }
  return byFile;
}

describe("the error table's row files", () => {
  it("are the five concepts of the table, each exporting its rows", async () => {
    expect(rowFiles).toEqual([
      "api-rows.ts",
      "local-rows.ts",
      "network-rows.ts",
      "outcome-rows.ts",
      "usage-rows.ts",
    ]);
    for (const [name, codes] of await codesByFile()) {
      expect(codes.length, name).toBeGreaterThan(0);
    }
  });

  it("have no code in common", async () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [name, codes] of await codesByFile()) {
      for (const code of codes) {
        const first = seen.get(code);
        if (first !== undefined) twice.push(`${code}: ${first} and ${name}`);
        seen.set(code, name);
      }
    }
    expect(twice).toEqual([]);
  });

  it("make up the table exactly: every row of every file, and nothing else", async () => {
    const all = [...(await codesByFile()).values()].flat().sort();
    expect(all).toEqual(Object.keys(CODES).sort());
  });
});
