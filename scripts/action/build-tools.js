#!/usr/bin/env node
/**
 * Writes into DIR a package.json and a package-lock.json that install exactly what building
 * svc-dl needs, as the action's lock pins it (scripts/action/build.sh): every package of the
 * lock that a top-level dependency other than the test, lint and type-check tools
 * ({@link NOT_FOR_THE_BUILD}) reaches, with the resolved URLs and integrity hashes of LOCK, at
 * the same paths. A new dependency is therefore installed unless it is named here as a tool.
 *
 * Usage: node scripts/action/build-tools.js LOCK DIR
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Top-level dev dependencies the build never loads: the checker, tests, type declarations and their roll-up (`npm run build:types`; the action runs `scripts/build.js` alone). */
export const NOT_FOR_THE_BUILD = [
  /^@biomejs\//,
  /^@microsoft\/api-extractor$/,
  /^@types\//,
  /^@xterm\//,
  /^typescript$/,
  /^vitest$/,
  /^yaml$/,
  /^parse-prometheus-text-format$/,
];

/** Where npm finds `name` for the package at `from` (a lock path): nearest node_modules up. */
function resolveIn(packages, from, name) {
  let at = from;
  for (;;) {
    const candidate = `${at === "" ? "" : `${at}/`}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (at === "") return undefined;
    const cut = at.lastIndexOf("/node_modules/");
    at = cut < 0 ? "" : at.slice(0, cut);
  }
}

/**
 * The package.json and package-lock.json (lockfileVersion 3) of a project whose dependencies
 * are the build's, from the parsed lock `lock` (its root's dependencies and devDependencies
 * less {@link NOT_FOR_THE_BUILD}). Throws when the lock has no esbuild.
 */
export function buildToolsProject(lock) {
  const root = lock.packages[""] ?? {};
  const all = { ...root.dependencies, ...root.devDependencies };
  const dependencies = Object.fromEntries(
    Object.entries(all).filter(([name]) => !NOT_FOR_THE_BUILD.some((re) => re.test(name))),
  );
  if (!dependencies.esbuild) throw new Error("the lock names no esbuild");
  const kept = new Set();
  const queue = Object.keys(dependencies).map((name) => resolveIn(lock.packages, "", name));
  while (queue.length > 0) {
    const path = queue.pop();
    if (path === undefined || kept.has(path)) continue;
    kept.add(path);
    const entry = lock.packages[path];
    const needs = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...entry.peerDependencies,
    };
    for (const name of Object.keys(needs)) queue.push(resolveIn(lock.packages, path, name));
  }
  const packages = { "": { name: "svc-dl-build-tools", dependencies } };
  for (const path of [...kept].sort()) {
    const { dev: _dev, devOptional: _devOptional, ...entry } = lock.packages[path];
    packages[path] = entry;
  }
  const manifest = { name: "svc-dl-build-tools", private: true, dependencies };
  const lockfile = { name: "svc-dl-build-tools", lockfileVersion: 3, requires: true, packages };
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
