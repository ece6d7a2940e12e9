/**
 * The software bill of materials of the program bundle: which npm packages esbuild inlined
 * into dist/cli.js, dist/context.js and their chunks (read from its metafile), as a CycloneDX
 * 1.5 JSON document at dist/sbom.cdx.json. scripts/build.js writes it with every build, so the
 * packed tarball ships it; `npm run sbom` builds and prints its path. The library
 * (dist/index.js) inlines no package: its dependencies are package.json `dependencies`.
 *
 * Reproducible: no serial number, and a timestamp only from SOURCE_DATE_EPOCH when set.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The directories (relative to the repository root) of the npm packages whose files are inputs
 * of an esbuild metafile: each `node_modules/<name>` or `node_modules/@scope/<name>`, nested
 * copies included; sorted.
 */
export function inlinedPackageDirs(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  return [...dirs].sort();
}

/** `pkg:npm/…` Package URL of an npm package (a scope's `@` escaped, as the purl spec asks). */
function purl(name, version) {
  return `pkg:npm/${name.replace(/^@/, "%40")}@${version}`;
}

/** A CycloneDX licence choice for a package.json `license` value (an id or an expression). */
function licenses(license) {
  if (typeof license !== "string" || license === "") return undefined;
  return /^[A-Za-z0-9.+-]+$/.test(license)
    ? [{ license: { id: license } }]
    : [{ expression: license }];
}

/**
 * Writes the CycloneDX document of the packages inlined per `metafile` to `file` (both
 * relative to `root`), with svc-dl itself as the described component and the esbuild version
 * as the tool. Returns the number of components.
 */
export function writeSbom(root, metafile, file, esbuildVersion) {
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const components = new Map();
  for (const dir of inlinedPackageDirs(metafile)) {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const ref = purl(pkg.name, pkg.version);
    const scoped = /^(@[^/]+)\/(.+)$/.exec(pkg.name);
    components.set(ref, {
      type: "library",
      "bom-ref": ref,
      ...(scoped ? { group: scoped[1], name: scoped[2] } : { name: pkg.name }),
      version: pkg.version,
      purl: ref,
      ...(licenses(pkg.license) ? { licenses: licenses(pkg.license) } : {}),
    });
  }
  const self = purl(own.name, own.version);
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const doc = {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: {
      ...(Number.isInteger(epoch) && epoch >= 0
        ? { timestamp: new Date(epoch * 1000).toISOString() }
        : {}),
      tools: {
        components: [{ type: "application", name: "esbuild", version: esbuildVersion }],
      },
      component: {
        type: "application",
        "bom-ref": self,
        name: own.name,
        version: own.version,
        purl: self,
        ...(licenses(own.license) ? { licenses: licenses(own.license) } : {}),
      },
    },
    components: [...components.values()],
    dependencies: [{ ref: self, dependsOn: [...components.keys()] }],
  };
  writeFileSync(join(root, file), `${JSON.stringify(doc, null, 2)}\n`);
  return components.size;
}
