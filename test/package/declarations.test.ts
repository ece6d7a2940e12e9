import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The library's declarations stay small (docs/library.md): the public types come from
// model.ts, library/types.ts, the documents' schemas and the few modules index.ts names, never from the HTTP client,
// the download engine or the terminal output. The build's own tsc run (tsconfig.build.json)
// emits into a temporary folder; the files reachable from index.d.ts are counted.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * Most declaration files reachable from index.d.ts (12 when this test was written, 33 before;
 * 15 since the documents' types come from their schemas in src/documents/; 16 since the error
 * table's row types live in src/errors/code-table/entry.ts, beside the rows that use them).
 */
const MOST_FILES = 16;

/** The relative `.d.ts` files `entry` reaches through `from "./…"` and `import("./…")`. */
function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from\s+|import\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
      const base = join(dirname(file), spec ?? "").replace(/\.js$/, "");
      todo.push(existsSync(`${base}.d.ts`) ? `${base}.d.ts` : join(base, "index.d.ts"));
    }
  }
  return [...seen].map((f) => relative(dirname(entry), f)).sort();
}

describe("the library's declaration graph", () => {
  const out = mkdtempSync(join(tmpdir(), "svc-dl-dts-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(`index.d.ts reaches at most ${MOST_FILES} declaration files, none of the internals`, () => {
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const run = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", out], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.stdout + run.stderr).toBe("");
    const files = reachable(join(out, "index.d.ts"));
    expect(files.length, files.join("\n")).toBeLessThanOrEqual(MOST_FILES);
    expect(files.filter((f) => /^(http|download|io|outdir|commands|pacing|run)\//.test(f))).toEqual(
      [],
    );
    expect(files).toContain("model.d.ts");
    expect(files).toContain("library/types.d.ts");
  });
});
