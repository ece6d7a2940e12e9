#!/usr/bin/env node
/**
 * `npm run release`: writes a release a user can check into release/ (gitignored):
 * - svc-dl-VERSION.tgz: `npm pack` of a fresh build (dist/ is removed first, so no file of an
 *   earlier build is shipped; `prepack` builds the bundles, the declarations and the SBOM);
 * - svc-dl-VERSION.sbom.cdx.json: the program bundle's SBOM (CycloneDX, scripts/sbom.js);
 * - SHA256SUMS: one `<sha256>  <file>` line per file above, for `sha256sum -c SHA256SUMS`.
 *
 * Reproducible: the same commit gives the same tarball bytes wherever it is built (npm pack
 * fixes every file's mtime and order; the build writes no path or time of the machine), and the
 * SBOM's timestamp is SOURCE_DATE_EPOCH, by default the commit's time (`git log -1 --format=%ct`).
 * Prints each file with its SHA-256. Exits non-zero when a step fails.
 *
 * Usage: node scripts/release.js [--out DIR]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt >= 0 ? resolve(args[outAt + 1] ?? "") : join(root, "release");

/** Runs a command in the repository; throws with its output when it fails. */
function run(cmd, cmdArgs, env = process.env) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, encoding: "utf8", env });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${cmdArgs.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/** SOURCE_DATE_EPOCH when set, else the commit's time, else none (not in a git checkout). */
function sourceDateEpoch() {
  if (process.env.SOURCE_DATE_EPOCH) return process.env.SOURCE_DATE_EPOCH;
  const git = spawnSync("git", ["log", "-1", "--format=%ct"], { cwd: root, encoding: "utf8" });
  return git.status === 0 && /^\d+$/.test(git.stdout.trim()) ? git.stdout.trim() : undefined;
}

const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const epoch = sourceDateEpoch();
const env = { ...process.env, ...(epoch ? { SOURCE_DATE_EPOCH: epoch } : {}) };
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
rmSync(join(root, "dist"), { recursive: true, force: true });
const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", out], env));
const tarball = packed[0]?.filename;
if (!tarball) throw new Error("npm pack wrote no tarball");
const sbom = `svc-dl-${version}.sbom.cdx.json`;
copyFileSync(join(root, "dist", "sbom.cdx.json"), join(out, sbom));
const sums = [tarball, sbom]
  .sort()
  .map(
    (f) =>
      `${createHash("sha256")
        .update(readFileSync(join(out, f)))
        .digest("hex")}  ${f}\n`,
  )
  .join("");
writeFileSync(join(out, "SHA256SUMS"), sums);
process.stdout.write(`${sums}release files in ${out}\n`);
