#!/usr/bin/env node
/**
 * `npm run build`: bundles src/ into dist/ with esbuild — ESM for Node 20.18, one
 * file per entry point at the paths other code imports, shared code and every lazily
 * `import()`ed module in chunks beside them (code splitting), so `--help` still loads no HTTP,
 * config or download code. Type checking is `npm run typecheck`; this build does not type-check.
 *
 * The program (dist/cli.js, dist/context.js: what bin/svc-dl.js loads) gets its npm
 * dependencies inlined: a handful of chunks instead of ~270 CommonJS/ESM files to resolve, read
 * and compile at every start (docs/performance.md "Start-up"). Their licence texts go to
 * dist/THIRD-PARTY-LICENSES.txt. The library (dist/index.js)
 * and the mock service keep their dependencies external: an application that imports svc-dl
 * shares its node_modules.
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
 * The program's bundle also gets its SBOM, dist/sbom.cdx.json (scripts/sbom.js); `--sbom` prints
 * its path and size.
 *
 * Usage: node scripts/build.js [--metafile FILE] [--sbom] [--types | --types-only]
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants as http2Constants } from "node:http2";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, version as esbuildVersion } from "esbuild";
import { PROGRAM_EXTERNALS } from "./program-externals.js";
import { inlinedPackageDirs, writeSbom } from "./sbom.js";

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
  {
    outbase: "src",
    outdir: "dist",
    entryPoints: ["src/cli.ts", "src/context.ts"],
    packages: "bundle",
    external: PROGRAM_EXTERNALS,
    // Inlined CommonJS packages call require() for Node's built-ins: give ESM chunks one.
    banner: {
      js: `// Includes npm packages; their licences: THIRD-PARTY-LICENSES.txt
import { createRequire as __svcCreateRequire } from "node:module";
const require = __svcCreateRequire(import.meta.url);`,
    },
    // ESM builds first: jsonc-parser's "main" is a UMD file whose require() calls of its own
    // modules esbuild cannot follow (they would fail at run time).
    mainFields: ["module", "main"],
    legalComments: "eof",
    licenses: "dist/THIRD-PARTY-LICENSES.txt",
    sbom: "dist/sbom.cdx.json",
    // whitespace and syntax only (a smaller package; names stay, so a --verbose stack trace
    // still reads); the library's bundle stays as written
    minifyWhitespace: true,
    minifySyntax: true,
    // what `svc-dl --version --verbose` and doctor name (src/build-info.ts)
    define: { SVC_DL_BUNDLED_UNDICI: JSON.stringify(undiciVersion()) },
    plugins: programPlugins(),
  },
  { outbase: "src", outdir: "dist", entryPoints: ["src/index.ts"] },
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
  try {
    checkUndiciSubset();
    await bundle();
  } catch (err) {
    console.error(`build: ${err.message}`);
    process.exitCode = 1;
  }
}

/** Writes both bundles (and with `--types` the declarations); sets a failing exit code on error. */
async function bundle() {
  try {
    const results = await Promise.all(
      BUNDLES.map(({ licenses, sbom, ...b }) =>
        build({
          packages: "external",
          legalComments: "none",
          splitting: true,
          format: "esm",
          ...b,
          absWorkingDir: root,
          chunkNames: "chunk-[hash]",
          bundle: true,
          platform: "node",
          target: "node20.18",
          sourcemap: false,
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
    BUNDLES.forEach((b, i) => {
      if (b.packages !== "bundle") return;
      if (b.licenses) writeLicenses(results[i].metafile, b.licenses);
      if (b.sbom) {
        const n = writeSbom(root, results[i].metafile, b.sbom, esbuildVersion);
        if (args.includes("--sbom")) console.log(`${b.sbom}: ${n} packages (CycloneDX 1.5)`);
      }
      assertNoRelativeRequire(results[i].metafile);
    });
    if (metaIndex !== -1) {
      const outputs = Object.assign({}, ...results.map((r) => r.metafile?.outputs ?? {}));
      writeFileSync(args[metaIndex + 1] ?? "dist-meta.json", JSON.stringify({ outputs }));
    }
    if (args.includes("--types")) emitDeclarations();
  } catch (err) {
    // esbuild has printed its own errors (they carry `errors`); print the others.
    if (!Array.isArray(err?.errors)) console.error(`build: ${err?.message ?? err}`);
    process.exitCode = 1;
  }
}

/** The esbuild plugins of the program's bundle. */
function programPlugins() {
  return [undiciForTheProgram(), http2OnFirstUse()];
}

/** The version of the undici package that the program bundle inlines (node_modules/undici). */
function undiciVersion() {
  return JSON.parse(readFileSync(join(root, "node_modules/undici/package.json"), "utf8")).version;
}

/**
 * Fails the build when scripts/undici-cli.js no longer matches undici's own index.js: each
 * module it imports by deep path must be one that index.js requires from that path, and each
 * `Object.assign(<X>.prototype, …)` wiring of index.js must be in the subset too (undici's
 * private paths may move in any release; package.json pins its exact version).
 */
function checkUndiciSubset() {
  const index = readFileSync(join(root, "node_modules/undici/index.js"), "utf8");
  const subset = readFileSync(join(root, "scripts/undici-cli.js"), "utf8");
  const problems = [];
  for (const [, path] of subset.matchAll(/from "undici\/(lib\/[^"]+)\.js"/g)) {
    const dir = path.replace(/\/index$/, "");
    if (!index.includes(`require('./${path}')`) && !index.includes(`require('./${dir}')`)) {
      problems.push(`undici's index.js no longer requires ./${path}`);
    }
  }
  for (const [wiring] of index.matchAll(/^Object\.assign\(\w+\.prototype, \w+\)/gm)) {
    if (!subset.includes(wiring))
      problems.push(`undici's index.js does ${wiring}; the subset does not`);
  }
  if (problems.length > 0) {
    throw new Error(
      `scripts/undici-cli.js does not match undici ${undiciVersion()}: ${problems.join("; ")}`,
    );
  }
}

/** Resolves `undici` to scripts/undici-cli.js: only the dispatchers the program uses. */
function undiciForTheProgram() {
  return {
    name: "undici-for-the-program",
    setup(b) {
      b.onResolve({ filter: /^undici$/ }, () => ({ path: join(root, "scripts/undici-cli.js") }));
    },
  };
}

/**
 * undici's HTTP/2 client reads `node:http2`'s constants when it loads, which loads all of
 * Node's HTTP/2 (about 13 ms idle, 40 ms on a busy machine) in every run, although the program
 * only speaks HTTP/1.1 (ALPN `http/1.1`). In the program's bundle that import gets the
 * constants (protocol values: header names, error codes) copied from the building Node, and
 * everything else from `node:http2` itself, loaded on first use.
 */
function http2OnFirstUse() {
  return {
    name: "http2-on-first-use",
    setup(b) {
      b.onResolve({ filter: /^node:http2$/ }, (args) =>
        /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer)
          ? { path: "http2-on-first-use", namespace: "svc-dl" }
          : undefined,
      );
      b.onLoad({ filter: /^http2-on-first-use$/, namespace: "svc-dl" }, () => ({
        loader: "js",
        contents: `const constants = ${JSON.stringify(http2Constants)};
let real;
module.exports = new Proxy({ constants }, {
  get: (t, k) => (k === "constants" ? t.constants : (real ??= require("node:http2"))[k]),
});`,
      }));
    },
  };
}

/**
 * Throws when an output of a bundle with inlined packages still calls require() on a relative
 * path: a module esbuild could not follow (a UMD wrapper, a computed name), which would be
 * missing at run time.
 */
function assertNoRelativeRequire(metafile) {
  for (const out of Object.keys(metafile.outputs)) {
    if (!/\.c?js$/.test(out)) continue;
    const m = /\brequire\d*\(\s*["']\.\.?\/[^"']*["']\s*\)/.exec(
      readFileSync(join(root, out), "utf8"),
    );
    if (m) throw new Error(`${out}: ${m[0]} is not bundled and would fail at run time`);
  }
}

/**
 * Writes the licence of every npm package inlined into a bundle (read from the metafile's
 * inputs: each `node_modules/<name>/` directory, nested ones included) to `file`: name, version,
 * licence id, the package's LICENSE file and its NOTICE file if any. Throws when a package ships no licence file.
 */
function writeLicenses(metafile, file) {
  const parts = inlinedPackageDirs(metafile).map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const text = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)/i.test(f));
    if (!text) throw new Error(`${dir}: no licence file to ship with the bundle`);
    const notice = readdirSync(join(root, dir)).find((f) => /^notice/i.test(f));
    const body = [text, notice]
      .filter(Boolean)
      .map((f) => readFileSync(join(root, dir, f), "utf8").trim())
      .join("\n\n");
    return `${pkg.name} ${pkg.version} (${pkg.license ?? "see below"})\n\n${body}\n`;
  });
  const head =
    "The svc-dl program (dist/cli.js, dist/context.js and the chunks they load) includes these npm packages.\n";
  writeFileSync(join(root, file), `${head}\n${parts.join(`\n${"-".repeat(72)}\n\n`)}`);
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
