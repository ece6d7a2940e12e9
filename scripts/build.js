#!/usr/bin/env node
/**
 * `npm run build` (issue 7): bundles src/ into dist/ with esbuild — ESM for Node 20.18, one
 * file per entry point at the paths other code imports, shared code and every lazily
 * `import()`ed module in chunks beside them (code splitting), so `--help` still loads no HTTP,
 * config or download code. npm dependencies stay external (resolved from node_modules at run
 * time). Type checking is `npm run typecheck`; this build does not type-check.
 *
 * With `--types` it also emits the library's declarations (`tsc -p tsconfig.build.json`: the
 * `.d.ts` files of src/index.ts and src/mock-server/index.ts and what they import, into
 * dist/types/, named by the `types` conditions of package.json `exports`). That takes seconds of
 * type checking, so only `prepare` (npm install in a clone, a git dependency) and `prepack`
 * (npm pack and npm publish) ask for it, not the test suite's global setup.
 *
 * `--types-only` emits the declarations and leaves the bundles alone (rewriting dist/*.js in
 * place while tests start the CLI from it could hand them a half-written file).
 *
 * Usage: node scripts/build.js [--metafile FILE] [--types | --types-only]
 */
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Two bundles, each entry point landing at the same path under dist/ as before:
 * - the CLI and the library (dist/cli.js, dist/context.js, dist/index.js: the package's `"."`
 *   export; chunks in dist/, one level below the package root, where context.ts finds
 *   ../package.json);
 * - the mock service (dist/mock-server/index.js, dist/mock-server/cli.js; chunks in
 *   dist/mock-server/, two levels down, where fixture.ts finds ../../fixtures/).
 */
const BUNDLES = [
  { outbase: "src", outdir: "dist", entryPoints: ["src/cli.ts", "src/context.ts", "src/index.ts"] },
  {
    outbase: "src/mock-server",
    outdir: "dist/mock-server",
    entryPoints: ["src/mock-server/index.ts", "src/mock-server/cli.ts"],
  },
];

const args = process.argv.slice(2);
const metaIndex = args.indexOf("--metafile");

if (args.includes("--types-only")) {
  emitDeclarations();
} else {
  await bundle();
}

/** Writes both bundles (and with `--types` the declarations); sets a failing exit code on error. */
async function bundle() {
  try {
    const results = await Promise.all(
      BUNDLES.map((b) =>
        build({
          ...b,
          absWorkingDir: root,
          chunkNames: "chunk-[hash]",
          bundle: true,
          splitting: true,
          format: "esm",
          platform: "node",
          target: "node20.18",
          packages: "external",
          sourcemap: false,
          legalComments: "none",
          logLevel: "warning",
          metafile: true,
        }),
      ),
    );
    // Chunk names change with their content: remove chunks of earlier builds that this one did
    // not write (after the build, so a CLI started meanwhile never misses a current chunk).
    const written = new Set(results.flatMap((r) => Object.keys(r.metafile.outputs)));
    for (const b of BUNDLES) {
      for (const name of readdirSync(join(root, b.outdir))) {
        const rel = `${b.outdir}/${name}`;
        if (/^chunk-[A-Z0-9]+\.js$/.test(name) && !written.has(rel))
          rmSync(join(root, rel), { force: true });
      }
    }
    if (metaIndex !== -1) {
      const outputs = Object.assign({}, ...results.map((r) => r.metafile?.outputs ?? {}));
      writeFileSync(args[metaIndex + 1] ?? "dist-meta.json", JSON.stringify({ outputs }));
    }
    if (args.includes("--types")) emitDeclarations();
  } catch {
    // esbuild has printed the errors.
    process.exitCode = 1;
  }
}

/** `tsc -p tsconfig.build.json` into a fresh dist/types/ (stale declarations removed first). */
function emitDeclarations() {
  rmSync(join(root, "dist/types"), { recursive: true, force: true });
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  if (r.status !== 0) process.exitCode = 1;
}
