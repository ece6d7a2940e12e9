#!/usr/bin/env node
/**
 * Writes into DIR a package.json and a package-lock.json that install esbuild exactly as the
 * action's lock pins it: its entry and its platform packages (`@esbuild/*`), with their
 * resolved URLs and integrity hashes copied from LOCK, so `npm ci` in DIR installs the one
 * build tool the action needs and nothing the lock does not name (scripts/action/build.sh).
 *
 * Usage: node scripts/action/build-tools.js LOCK DIR
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The package.json and package-lock.json (lockfileVersion 3) of a project depending only on
 * esbuild, from the parsed lock `lock`. Throws when the lock has no esbuild.
 */
export function buildToolsProject(lock) {
  const esbuild = lock.packages?.["node_modules/esbuild"];
  if (!esbuild?.version) throw new Error("the lock names no esbuild");
  const dependencies = { esbuild: esbuild.version };
  const packages = { "": { name: "svc-dl-build-tools", dependencies } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === "node_modules/esbuild" || path.startsWith("node_modules/@esbuild/")) {
      const { dev: _dev, devOptional: _devOptional, ...kept } = entry;
      packages[path] = kept;
    }
  }
  const manifest = { name: "svc-dl-build-tools", private: true, dependencies };
  const lockfile = {
    name: "svc-dl-build-tools",
    lockfileVersion: 3,
    requires: true,
    packages,
  };
  return { manifest, lockfile };
}

if (process.argv[1]?.endsWith("build-tools.js")) {
  const [lockPath, dir] = process.argv.slice(2);
  if (!lockPath || !dir) {
    console.error("usage: node scripts/action/build-tools.js LOCK DIR");
    process.exit(2);
  }
  const { manifest, lockfile } = buildToolsProject(JSON.parse(readFileSync(lockPath, "utf8")));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(lockfile, null, 2)}\n`);
}
