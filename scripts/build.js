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
 * With `--types` it also emits the library's declarations (scripts/declarations.js: one rolled-up
 * `.d.ts` per export of package.json, at the paths its `types` conditions name). That takes seconds of
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
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, version as esbuildVersion } from "esbuild";
import { writeDeclarations } from "./declarations.js";
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
    // minified (the package's budget: docs/performance.md "Package size"), with `keepNames`: a
    // --verbose stack trace still names functions and methods (a method's class by a short name)
    minify: true,
    keepNames: true,
    // what `svc-dl --version --verbose` and doctor name (src/build-info.ts)
    define: { SVC_DL_BUNDLED_UNDICI: JSON.stringify(undiciVersion()) },
    plugins: programPlugins(),
  },
  // whitespace and syntax only, as the program's (and the mock's): names stay for stack traces
  {
    outbase: "src",
    outdir: "dist",
    entryPoints: ["src/index.ts"],
    minifyWhitespace: true,
    minifySyntax: true,
  },
  {
    outbase: "src/mock-server",
    outdir: "dist/mock-server",
    entryPoints: ["src/mock-server/index.ts", "src/mock-server/cli.ts"],
    minifyWhitespace: true,
    minifySyntax: true,
  },
];

const args = process.argv.slice(2);
const metaIndex = args.indexOf("--metafile");

if (args.includes("--types-only")) {
  await emitDeclarations();
} else {
  try {
    checkUndiciSubset();
    checkPromClientSubset();
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
    if (args.includes("--types")) await emitDeclarations();
  } catch (err) {
    // esbuild has printed its own errors (they carry `errors`); print the others.
    if (!Array.isArray(err?.errors)) console.error(`build: ${err?.message ?? err}`);
    process.exitCode = 1;
  }
}

/** The esbuild plugins of the program's bundle. */
function programPlugins() {
  return [
    subsetForTheProgram("undici", "scripts/undici-cli.js"),
    subsetForTheProgram("prom-client", "scripts/prom-client-cli.js"),
    withoutHttp2(),
    confWithoutSchemasOrMigrations(),
  ];
}

/**
 * conf (the config file's writer, src/config/store.ts) imports ajv and ajv-formats for its
 * `schema` option and semver for its `migrations` option; svc-dl passes neither (it validates
 * the file itself, src/config/file.ts), so conf never calls them. In the program's bundle those
 * imports get a stand-in that throws if called: about 270 kB of the package (ajv, its formats,
 * fast-uri, semver) that no run of svc-dl loads. Only imports made by conf itself.
 */
function confWithoutSchemasOrMigrations() {
  const standIn = `const unused = () => {
  throw new Error("svc-dl's bundle leaves out conf's schema and migration support (scripts/build.js)");
};
export class Ajv2020 { constructor() { unused(); } }
export default Object.assign(unused, { default: unused, eq: unused, clean: unused, satisfies: unused, lte: unused, gt: unused });
`;
  return {
    name: "conf-without-schemas-or-migrations",
    setup(b) {
      b.onResolve({ filter: /^(ajv\/dist\/2020\.js|ajv-formats|semver)$/ }, (args) =>
        /[\\/]node_modules[\\/]conf[\\/]/.test(args.importer)
          ? { path: args.path, namespace: "conf-unused" }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "conf-unused" }, () => ({
        loader: "js",
        contents: standIn,
      }));
    },
  };
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

/** Resolves the package `name` to `subset` (a file of scripts/ exporting the part the program uses). */
function subsetForTheProgram(name, subset) {
  return {
    name: `${name}-for-the-program`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, () => ({ path: join(root, subset) }));
    },
  };
}

/**
 * Fails the build when scripts/prom-client-cli.js no longer matches: prom-client's index.js must
 * still export each name the subset exports from the same module, and src/ may take no other
 * name from prom-client.
 */
function checkPromClientSubset() {
  const index = readFileSync(join(root, "node_modules/prom-client/index.js"), "utf8");
  const subset = readFileSync(join(root, "scripts/prom-client-cli.js"), "utf8");
  const problems = [];
  const names = [];
  for (const [, name, path] of subset.matchAll(
    /^import (\w+) from "prom-client\/(lib\/\w+)\.js"/gm,
  )) {
    names.push(name);
    if (!index.includes(`exports.${name} = require('./${path}');`))
      problems.push(`prom-client's index.js no longer exports ${name} from ./${path}`);
  }
  const metrics = readFileSync(join(root, "src/run/metrics.ts"), "utf8");
  for (const [, list] of metrics.matchAll(/\{ ([\w, ]+) \} = \(await import\("prom-client"\)\)/g)) {
    for (const used of list.split(",").map((n) => n.trim())) {
      if (!names.includes(used))
        problems.push(`src/run/metrics.ts uses ${used}, not in the subset`);
    }
  }
  const sites = readdirSync(join(root, "src"), { recursive: true })
    .filter(
      (f) =>
        /\.ts$/.test(f) && readFileSync(join(root, "src", f), "utf8").includes('"prom-client"'),
    )
    .map((f) => f.replaceAll("\\", "/"));
  if (sites.join() !== "run/metrics.ts")
    problems.push(
      `prom-client is imported by ${sites.join(", ")}; only src/run/metrics.ts is checked`,
    );
  if (problems.length > 0) {
    throw new Error(
      `scripts/prom-client-cli.js does not match prom-client: ${problems.join("; ")}`,
    );
  }
}

/**
 * undici's HTTP/2 client (dispatcher/client-h2.js, with all of Node's HTTP/2 behind it) only runs
 * on a connection whose ALPN chose `h2`, which the program never offers (it speaks HTTP/1.1,
 * ALPN `http/1.1`, and sets no `allowH2`). In the program's bundle the module is a stand-in that
 * throws if ever called: no `node:http2` loaded at start (about 13 ms idle, 40 ms on a busy
 * machine) and about 26 kB less package.
 */
function withoutHttp2() {
  return {
    name: "without-http2",
    setup(b) {
      b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
        /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)
          ? { path: "client-h2", namespace: "svc-dl" }
          : undefined,
      );
      b.onLoad({ filter: /^client-h2$/, namespace: "svc-dl" }, () => ({
        loader: "js",
        contents: `module.exports = function connectH2() {
  throw new Error("svc-dl's program speaks HTTP/1.1 only, yet a connection chose h2");
};`,
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

/** The rolled-up declarations (scripts/declarations.js); prints its problems and fails on any. */
async function emitDeclarations() {
  const problems = await writeDeclarations(root);
  for (const p of problems) console.error(`build: ${p}`);
  if (problems.length > 0) process.exitCode = 1;
}
