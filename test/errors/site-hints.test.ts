import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { NO_COMMAND, renderHint } from "../../src/errors/codes.js";
import { hintFor } from "../../src/errors/format.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { useMockService } from "../helpers/mock.js";

// One source for each user-facing text: a throw site passes facts (`detail: { path }`) and the
// error table (src/errors/codes.ts) renders the hint. A prose `hint` at a throw site wins over
// the table, so every such place is listed here with its count and the reason no row can know
// the situation; the list may only shrink: to move a site's text into the table, pass its facts
// as `detail` and lower (or drop) its count.

const ROOT = join(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");

const USAGE =
  "a usage mistake between this command's own flags or arguments: the usage_error row can only point at --help, the site names the fix";
const OUTCOME =
  "a run's outcome repeats its failed items' own hints (each rendered by the table, src/run/failure.ts failedItemsHint), which no outcome row can know";

/**
 * Files of src/ that still pass a prose hint where they throw: how many times, and why no row
 * of the table can know the situation.
 */
const SITE_HINTS: Record<string, { count: number; why: string }> = {
  "src/api/legacy-download.ts": {
    count: 1,
    why: "a service code the table does not list takes the legacy_denied row's own hint (table text, chosen by the code the service sent)",
  },
  "src/commands/cache/locks.ts": { count: 1, why: USAGE },
  "src/commands/pack/get.run.ts": { count: 1, why: USAGE },
  "src/commands/shared/get-many.ts": { count: 3, why: `two: ${USAGE}; one: ${OUTCOME}` },
  "src/commands/shared/get-one.ts": { count: 1, why: USAGE },
  "src/install/outcome.ts": { count: 1, why: OUTCOME },
  "src/install/run.ts": { count: 1, why: USAGE },
  "src/sync/report.ts": { count: 1, why: OUTCOME },
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "mock-server" ? [] : tsFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Prose hints given where an error is made: a `hint` property in the arguments of
 * `new …Error(…)` (`fsError(what, err, detail)` takes facts only).
 */
function siteHints(): Record<string, number> {
  const found: Record<string, number> = {};
  for (const path of tsFiles(SRC)) {
    const file = relative(ROOT, path).split(sep).join("/");
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
    const count = (): void => {
      found[file] = (found[file] ?? 0) + 1;
    };
    const hintsIn = (node: ts.Node): void => {
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        node.name.text === "hint"
      ) {
        count();
      }
      ts.forEachChild(node, hintsIn);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && /Error$/.test(node.expression.getText(source))) {
        for (const arg of node.arguments ?? []) hintsIn(arg);
        return; // an error made inside its arguments is counted by hintsIn
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("hints come from the error table", () => {
  it("throw sites pass prose hints only in the listed places (the list only shrinks)", () => {
    const listed = Object.fromEntries(Object.entries(SITE_HINTS).map(([f, e]) => [f, e.count]));
    expect(siteHints()).toEqual(listed);
    for (const entry of Object.values(SITE_HINTS)) expect(entry.why.length).toBeGreaterThan(20);
  });

  it("the scan finds a prose hint where one is given (control)", () => {
    const text = `throw new FileSystemError("m", { code: "write_failed", hint: "x" });`;
    const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest);
    let hints = 0;
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAssignment(node) && node.name.getText(source) === "hint") hints++;
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(hints).toBe(1);
  });

  it("the table renders a hint from the thrower's facts, in the CLI and the library", () => {
    const path = "/home/u/.config/svc-dl/config.json";
    const err = new SvcError("the config file is not valid", {
      code: "config_invalid",
      detail: { path },
    });
    expect(err.hint).toContain(path);
    expect(hintFor(err)).toBe(renderHint("config_invalid", NO_COMMAND, { path }));
    expect(renderHint("config_invalid", NO_COMMAND)).toContain("svc-dl config path");
    const restart = new SvcError("the part file changed", {
      code: "write_failed",
      detail: { restart: true },
    });
    expect(restart.hint).toBe("Run the same command again; svc-dl starts the file over.");
    expect(new SvcError("disk", { code: "write_failed" }).hint).toBeUndefined();
  });

  it("redacting an error redacts the facts its hint is built from", () => {
    const err = new SvcError("m", { code: "config_invalid", detail: { path: "/x/SECRET/c.json" } });
    const clean = err.redacted("SECRET", "***");
    expect(clean.hint).not.toContain("SECRET");
    expect(hintFor(clean)).toContain("/x/***/c.json");
  });
});

describe("corrupt_download prints the table's hint", () => {
  const shared = useMockService({ assetSize: 4 * 1024 });

  it("an HTML page served as the file, every time: exit 7 with the row's next step", async () => {
    shared.mock.set({ faults: { htmlErrorPage: { count: 10, status: 200 } } });
    try {
      const r = await runCli(["--json", "asset", "get", "forest-pine-tree"], {
        env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: shared.mock.apiKey },
        cwd: tempDir(),
      });
      expect(r.code).toBe(7);
      const { error } = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}") as {
        error: { code: string; hint: string };
      };
      expect(error.code).toBe("corrupt_download");
      expect(error.hint).toBe(renderHint("corrupt_download", NO_COMMAND));
    } finally {
      shared.mock.set({ faults: {} });
    }
  });
});
