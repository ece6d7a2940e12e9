import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkStructure, describeReport } from "../scripts/check-structure.js";

/**
 * The shape of src/ stays readable (docs/design.md): no file over 300 lines, no function over
 * 80 lines, no import cycle, no import that runs back up between folders.
 * `node scripts/check-structure.js` prints the same findings.
 */

const src = fileURLToPath(new URL("../src", import.meta.url));

/** Findings allowed today, as printed by describeReport without the line counts. */
const ALLOWED = new Set<string>([]);

/** A finding without its numbers, so an allowed entry survives edits that keep it over. */
const key = (line: string) => line.replace(/:\d+ /, " ").replace(/: .*$/, "");

describe("structure of src/", () => {
  const findings = describeReport(checkStructure(src));

  it("has no file, function or import beyond the rules except the allowed ones", () => {
    expect(findings.filter((line) => !ALLOWED.has(key(line)))).toEqual([]);
  });

  it("keeps the mock service apart: it imports nothing of the client, and nothing imports it", () => {
    const { rooms } = checkStructure(src);
    expect(rooms["mock-server/"]).toEqual([]);
    expect(Object.keys(rooms).filter((room) => rooms[room]?.includes("mock-server/"))).toEqual([]);
  });

  it("lists no allowed finding that is gone (shrink the list as files get split)", () => {
    const found = new Set(findings.map(key));
    expect([...ALLOWED].filter((entry) => !found.has(entry))).toEqual([]);
  });
});

describe("checkStructure", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (files: Record<string, string>) => {
    dir = mkdtempSync(join(tmpdir(), "svc-dl-structure-"));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  };
  const body = (n: number) =>
    Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");

  it("finds long files and long functions by name, leading comments not counted", () => {
    const root = write({
      "a/long.ts": "// filler\n".repeat(301),
      "a/fn.ts": `/** doc */\nexport function long(): void {\n${body(79)}\n}\n`,
      "a/fits.ts": `export function fits(): void {\n${body(78)}\n}\n`,
      "a/box.ts": `export class Box {\n  #run(): void {\n${body(79)}\n  }\n}\n`,
      "b/arrow.ts": `export const arrow = () => {\n  return () => {\n${body(79)}\n  };\n};\n`,
    });
    const report = checkStructure(root);
    expect(report.longFiles).toEqual([{ file: "a/long.ts", lines: 301 }]);
    expect(report.longFunctions).toEqual([
      { file: "a/box.ts", name: "Box.#run", line: 2, lines: 81 },
      { file: "a/fn.ts", name: "long", line: 2, lines: 81 },
      { file: "b/arrow.ts", name: "arrow", line: 1, lines: 83 },
      { file: "b/arrow.ts", name: "arrow/<anonymous>", line: 2, lines: 81 },
    ]);
  });

  it("finds file cycles and the lighter arrow of a loop between folders", () => {
    const root = write({
      "low/a.ts": 'import type { B } from "./b.js";\nexport type A = B;\n',
      "low/b.ts": 'export type B = number;\nexport const f = () => import("./a.js");\n',
      "high/x.ts": 'import { f } from "../low/b.js";\nexport const x = f;\n',
      "high/y.ts": 'export * from "../low/b.js";\n',
      "low/c.ts": 'import { x } from "../high/x.js";\nexport const c = x;\n',
    });
    const report = checkStructure(root);
    expect(report.fileCycles).toEqual([["low/a.ts", "low/b.ts"]]);
    expect(report.upwardImports).toEqual([
      { from: "low/", to: "high/", files: ["low/c.ts -> high/x.ts"] },
    ]);
    expect(report.rooms).toEqual({ "high/": ["low/"], "low/": ["high/"] });
  });
});
