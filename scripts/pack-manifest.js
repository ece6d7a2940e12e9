#!/usr/bin/env node
/**
 * Keeps the `prepare` script out of the packed package.json (`npm pack`, `npm publish`).
 *
 * `prepare` builds dist/ (bundles and type declarations) wherever svc-dl is installed from
 * source: `npm install` in a clone, and a git dependency (npm installs its dev dependencies and
 * runs `prepare` before packing it). A tarball already holds dist/, and npm warns about a
 * package whose manifest has `prepare` ("install scripts not yet covered by allowScripts"), so
 * the tarball's package.json must not have it:
 *
 *   prepack:  node scripts/build.js --types && node scripts/pack-manifest.js strip
 *   postpack: node scripts/pack-manifest.js restore
 *
 * `strip` keeps the original beside it (.package.json.prepack, never packed) and removes
 * `scripts.prepare`; `restore` puts the original back. A pack that failed in between leaves
 * the copy: the next `strip` keeps that original, and `restore` (or the next pack) puts it back.
 *
 * Usage: node scripts/pack-manifest.js strip|restore
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = join(root, "package.json");
const original = join(root, ".package.json.prepack");

const [command] = process.argv.slice(2);
if (command === "strip") {
  if (!existsSync(original)) writeFileSync(original, readFileSync(manifest));
  const pkg = JSON.parse(readFileSync(original, "utf8"));
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (command === "restore") {
  if (existsSync(original)) renameSync(original, manifest);
} else {
  console.error("usage: node scripts/pack-manifest.js strip|restore");
  process.exitCode = 2;
}
