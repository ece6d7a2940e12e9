import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PROGRAM_EXTERNALS } from "../../scripts/program-externals.js";

// Honest dependencies: the program (bin/svc-dl.js → dist/cli.js) carries its npm packages
// inlined (but native modules, scripts/program-externals.js), so `dependencies` in
// package.json are exactly those native modules and the packages the library
// (dist/index.js, the "." export) and the mock service (dist/mock-server/, "./mock" and
// svc-dl-mock) import at run time; everything else is a devDependency.

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The package (or built-in) a bare specifier names: `zod/mini` → zod, `@a/b/c` → @a/b. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The npm packages the built files reachable from `entries` import (statically, by `import()`
 * or by `require()`), following relative imports between the files of dist/.
 */
function packagesImportedBy(entries: string[]): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const todo = entries.map((e) => join(root, e));
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    // import/export statements (minified: after `;` or `}`), import() and require() calls: not
    // the same words inside a string (an inlined package's generated code)
    const refs =
      /(?:^|[;}])\s*(?:import|export)\b[^;"'`]*?from\s*"([^"]+)"|(?<!["'`.\w])(?:import|require)\("([^"]+)"\)/gm;
    for (const m of text.matchAll(refs)) {
      const spec = m[1] ?? m[2] ?? "";
      if (spec.startsWith(".")) todo.push(resolve(dirname(file), spec));
      const name = packageOf(spec);
      if (name !== undefined && !builtinModules.includes(name)) found.add(name);
    }
  }
  return found;
}

describe("package.json dependencies", () => {
  it("are exactly what the library and the mock service import at run time", () => {
    const imported = packagesImportedBy([
      "dist/index.js",
      "dist/mock-server/index.js",
      "dist/mock-server/cli.js",
    ]);
    // and the native modules the program requires from node_modules (it cannot inline them)
    const needed = new Set([...imported, ...PROGRAM_EXTERNALS]);
    expect([...needed].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it("the program imports no npm package at run time (all are inlined)", () => {
    expect([...packagesImportedBy(["dist/cli.js", "dist/context.js"])]).toEqual([]);
  });

  it("undici is pinned to one version (the program inlines a subset of its private modules)", () => {
    expect(pkg.dependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("dist/sbom.cdx.json (shipped in dist/) lists each package the program inlines", () => {
    const sbom = JSON.parse(readFileSync(join(root, "dist/sbom.cdx.json"), "utf8")) as {
      bomFormat: string;
      specVersion: string;
      components: { name: string; group?: string; version: string; purl: string }[];
    };
    expect([sbom.bomFormat, sbom.specVersion]).toEqual(["CycloneDX", "1.5"]);
    const listed = sbom.components.map(
      (c) => `${c.group ? `${c.group}/` : ""}${c.name} ${c.version}`,
    );
    // the licence file names the same packages, each with its version
    const licences = readFileSync(join(root, "dist/THIRD-PARTY-LICENSES.txt"), "utf8");
    const named = [...licences.matchAll(/^(\S+) (\d+\.\d+\.\d+\S*) \(/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(listed.sort()).toEqual(named.sort());
    const undici = JSON.parse(readFileSync(join(root, "node_modules/undici/package.json"), "utf8"));
    expect(sbom.components).toContainEqual(
      expect.objectContaining({
        name: "undici",
        version: undici.version,
        purl: `pkg:npm/undici@${undici.version}`,
      }),
    );
  });
});
