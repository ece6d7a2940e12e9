import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Tests mirror src/ (docs/design.md "Tests"): the tests of src/<folder>/ sit in test/<folder>/,
// a subfolder of test/<folder>/ names a subfolder or a file of src/<folder>/ (test/commands/auth/
// for src/commands/auth/, test/commands/api/ for src/commands/api.ts), and a test of a top-level
// file of src/ sits at test/<file>.test.ts. Anything else has to be one of the roots below.

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** First-level folders of test/ that mirror no folder of src/, and why. */
const SPECIAL_ROOTS: Record<string, string> = {
  helpers: "shared test code: mock service, runCli, launchCli, clocks, servers, mounts",
  bin: "the bin/ wiring: start-up cost, a closed stdout",
  reliability: "hostile servers, proxies, disks and kills across every feature, one harness",
  property: "every feature combination against the served bytes, one fast-check property",
  bench: "npm run bench",
  package: "the install routes, npm run test:package (a CI step of its own)",
};

/** Files at the top of test/ that test a repository file, not a file of src/. */
const REPOSITORY_TESTS: Record<string, string> = {
  "layout.test.ts": "test",
  "action.test.ts": "action.yml",
  "package-manifest.test.ts": "package.json",
  "structure.test.ts": "scripts/check-structure.js",
};

/** A tree as the guard sees it: relative paths of files, with "/" separators. */
interface Tree {
  /** Files under test/, relative to test/. */
  tests: string[];
  /** Whether `src/<path>` exists (a file or a folder). */
  inSrc: (path: string) => boolean;
  /** Whether `<path>` exists at the repository's root. */
  inRepo: (path: string) => boolean;
}

/** Every test file that sits where the layout does not allow it, with the reason. */
function misplaced(tree: Tree): string[] {
  const problems: string[] = [];
  for (const file of tree.tests) {
    const parts = file.split("/");
    const name = parts[parts.length - 1] ?? "";
    if (/\.(test|spec)\.[cm]?[jt]sx?$/.test(name) && !name.endsWith(".test.ts")) {
      problems.push(`${file}: vitest runs *.test.ts only`);
      continue;
    }
    if (parts.length === 1) {
      const repoFile = REPOSITORY_TESTS[name];
      const stem = name.split(".")[0] ?? "";
      if (repoFile !== undefined ? !tree.inRepo(repoFile) : !tree.inSrc(`${stem}.ts`)) {
        problems.push(`${file}: a file at the top of test/ tests a top-level file of src/`);
      }
      continue;
    }
    if (parts[0] !== undefined && parts[0] in SPECIAL_ROOTS) continue;
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join("/");
      if (!tree.inSrc(folder) && !tree.inSrc(`${folder}.ts`)) {
        problems.push(`${file}: test/${folder}/ mirrors nothing in src/`);
        break;
      }
    }
  }
  return problems;
}

/**
 * Test files that start svc-dl another way than test/helpers/cli.ts (`runCli` in-process,
 * `launchCli`/`spawnCli` as a child process): one that calls `main()` itself, or spawns
 * bin/svc-dl.js. test/package/ runs installed copies and test/bench/ times real processes, so
 * both are left out.
 */
function ownLaunchers(files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([file]) => !["helpers/cli.ts", "layout.test.ts"].includes(file))
    .filter(([file]) => !file.startsWith("package/") && !file.startsWith("bench/"))
    .filter(
      ([, text]) =>
        /import\s*\{[^}]*\bmain\b[^}]*\}\s*from\s*"[^"]*src\/cli\.js"/.test(text) ||
        /import\(\s*"[^"]*src\/cli\.js"\s*\)/.test(text) ||
        (/"node:child_process"/.test(text) && /bin\/svc-dl\.js|"bin",\s*"svc-dl\.js"/.test(text)),
    )
    .map(([file]) => file);
}

function walk(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

describe("test layout", () => {
  it("every test file mirrors src/ or sits in a special root", () => {
    const tests = walk(join(ROOT, "test"));
    expect(tests).toContain("layout.test.ts");
    const problems = misplaced({
      tests,
      inSrc: (path) => existsSync(join(ROOT, "src", path)),
      inRepo: (path) => existsSync(join(ROOT, path)),
    });
    expect(problems).toEqual([]);
  });

  it("svc-dl is started through test/helpers/cli.ts only (one runner, one launcher)", () => {
    const files = Object.fromEntries(
      walk(join(ROOT, "test"))
        .filter((file) => /\.[cm]?[jt]s$/.test(file))
        .map((file) => [file, readFileSync(join(ROOT, "test", file), "utf8")]),
    );
    expect(ownLaunchers(files)).toEqual([]);
    expect(
      ownLaunchers({
        "a.test.ts": 'import { main } from "../src/cli.js";',
        "b.test.ts": 'const { main } = await import("../../src/cli.js");',
        "c.test.ts":
          'import { spawn } from "node:child_process";\nspawn(node, [join(root, "bin", "svc-dl.js")]);',
        "d.test.ts": 'import { commandAt } from "../src/cli.js";',
        "helpers/cli.ts": 'import { main } from "../../src/cli.js";',
      }),
    ).toEqual(["a.test.ts", "b.test.ts", "c.test.ts"]);
  });

  it("names the files that sit elsewhere", () => {
    const src = new Set([
      "download",
      "download/fast-body",
      "commands",
      "commands/api.ts",
      "cli.ts",
    ]);
    const problems = misplaced({
      tests: [
        "download/fast-body/framing.test.ts",
        "download/basic.e2e.test.ts",
        "commands/api/api.test.ts",
        "cli.test.ts",
        "helpers/anything/deep.ts",
        "action.test.ts",
        "unit/download/format.test.ts",
        "download/nowhere/x.test.ts",
        "integration.test.ts",
        "download/basic.spec.ts",
      ],
      inSrc: (path) => src.has(path),
      inRepo: (path) => path === "action.yml",
    });
    expect(problems).toEqual([
      "unit/download/format.test.ts: test/unit/ mirrors nothing in src/",
      "download/nowhere/x.test.ts: test/download/nowhere/ mirrors nothing in src/",
      "integration.test.ts: a file at the top of test/ tests a top-level file of src/",
      "download/basic.spec.ts: vitest runs *.test.ts only",
    ]);
  });
});
