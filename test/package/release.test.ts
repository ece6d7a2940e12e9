import { execFile, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * `npm run release` (scripts/release.js): two checkouts of the same commit, in different
 * folders, each build a release; the tarballs must be the same bytes, and each SHA256SUMS must
 * check with `sha256sum -c`. Slow (two full builds with declarations): `npm run test:package`.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const execFileAsync = promisify(execFile);
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string;

/**
 * A checkout of the working tree (tracked and new unignored files) with a copy of this
 * node_modules (hard links where the file system allows): a symlink would put the path of this
 * checkout into the bundles' comments, which a clone never has.
 */
function checkout(base: string, name: string): string {
  const dir = join(base, name);
  const files = spawnSync("git", ["ls-files", "-z", "-co", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .stdout.split("\0")
    .filter((f) => f !== "" && existsSync(join(root, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(root, f), join(dir, f));
  }
  const linked = spawnSync("cp", ["-al", join(root, "node_modules"), join(dir, "node_modules")]);
  if (linked.status !== 0) {
    cpSync(join(root, "node_modules"), join(dir, "node_modules"), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
  return dir;
}

describe("npm run release", () => {
  const dirs: string[] = [];

  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), "svc-dl-release-"));
    dirs.push(checkout(base, "one"), checkout(join(base, "deeper"), "two"));
    // no git here: the SBOM's time comes from SOURCE_DATE_EPOCH, as a release build sets it
    const env = { ...process.env, SOURCE_DATE_EPOCH: "1795000000" };
    await Promise.all(
      dirs.map((cwd) =>
        execFileAsync("npm", ["run", "release", "--silent"], { cwd, env, maxBuffer: 1 << 24 }),
      ),
    );
  }, 600_000);

  it("writes the tarball, the SBOM and SHA256SUMS into release/, and the sums check", () => {
    const [one] = dirs;
    const release = join(one ?? "", "release");
    expect(readdirSync(release).sort()).toEqual(
      ["SHA256SUMS", `svc-dl-${version}.sbom.cdx.json`, `svc-dl-${version}.tgz`].sort(),
    );
    const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: release, encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain(`svc-dl-${version}.tgz: OK`);
    const sbom = JSON.parse(readFileSync(join(release, `svc-dl-${version}.sbom.cdx.json`), "utf8"));
    expect(sbom.bomFormat).toBe("CycloneDX");
  });

  it("two builds of the same commit in different folders give the same tarball bytes", () => {
    const [one, two] = dirs.map((d) => join(d, "release"));
    const tgz = `svc-dl-${version}.tgz`;
    expect(readFileSync(join(one ?? "", tgz)).equals(readFileSync(join(two ?? "", tgz)))).toBe(
      true,
    );
    expect(readFileSync(join(one ?? "", "SHA256SUMS"), "utf8")).toBe(
      readFileSync(join(two ?? "", "SHA256SUMS"), "utf8"),
    );
  });
});
