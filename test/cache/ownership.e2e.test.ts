import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { type InstallDoc, install, makeProject } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";
import { IS_ROOT, mountTmpfs } from "../helpers/mounts.js";

const shared = useMockService({ packSize: 32 * 1024, assetSize: 16 * 1024 });
const SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55";
const ONE_ASSET = { dir: "out", assets: ["free-sample-cube"] };

function temp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A project folder as a user has one: sources, a .git folder, a README. */
function aProject(): string {
  const dir = temp("svc-dl-victim-");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "main.ts"), "export {};\n");
  mkdirSync(join(dir, ".git", "objects"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, "README.md"), "# mine\n");
  return dir;
}

/** Every path below `dir`, sorted (symlinks not followed). */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

function clean(cache: string, json = false) {
  return runCli(["cache", "clean", ...(json ? ["--json"] : [])], {
    env: { SVC_DL_CACHE_DIR: cache },
  });
}

/** Installs one asset into a fresh project with `cache`; returns the project and the result. */
async function installOne(cache: string) {
  const p = makeProject(ONE_ASSET);
  const r = await install(shared.mock, { root: p.root, cache });
  return { p, r };
}

describe("the cache is svc-dl's own: only what it wrote is deleted", () => {
  it("`cache clean` with SVC_DL_CACHE_DIR naming a project deletes nothing (exit 8 foreign_cache_dir)", async () => {
    const project = aProject();
    const before = tree(project);
    const r = await clean(project);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("foreign_cache_dir");
    expect(r.stderr).toContain(".git"); // names a foreign entry
    expect(r.stderr).toContain("nothing was deleted");
    expect(tree(project)).toEqual(before);
    const json = await clean(project, true);
    expect(json.code).toBe(8);
    expect(JSON.parse(json.stderr.trim().split("\n").pop() ?? "").error.code).toBe(
      "foreign_cache_dir",
    );
    expect(tree(project)).toEqual(before);
  });

  it("a cache svc-dl creates gets a CACHEDIR.TAG and mode 0700; clean keeps the tag", async () => {
    const cache = join(temp("svc-dl-parent-"), "new-cache");
    const { r } = await installOne(cache);
    expect(r.code, r.stderr).toBe(0);
    const tag = readFileSync(join(cache, "CACHEDIR.TAG"), "utf8");
    expect(tag.split("\n")[0]).toBe(SIGNATURE);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const c = await clean(cache, true);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toEqual({ dir: cache, removed: 1 });
    expect(readdirSync(cache)).toEqual(["CACHEDIR.TAG"]);
  });

  it("install refuses a non-empty folder without the tag and never changes its mode", async () => {
    const project = aProject();
    chmodSync(project, 0o750);
    const before = tree(project);
    const { r } = await installOne(project);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("foreign_cache_dir");
    expect(statSync(project).mode & 0o777).toBe(0o750);
    expect(tree(project)).toEqual(before);
  });

  it("an existing empty folder is adopted (tag written) with its mode left as it is", async () => {
    const cache = temp("svc-dl-empty-cache-");
    chmodSync(cache, 0o755);
    const { r } = await installOne(cache);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(cache).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(cache, "CACHEDIR.TAG"), "utf8").startsWith(SIGNATURE)).toBe(true);
  });

  it("a tagged cache holding a stray file anywhere is refused by clean, nothing deleted", async () => {
    const cache = temp("svc-dl-cache-");
    expect((await installOne(cache)).r.code).toBe(0);
    const [sub] = readdirSync(join(cache, "sha256"));
    writeFileSync(join(cache, "sha256", sub ?? "", "notes.txt"), "mine\n");
    const before = tree(cache);
    const r = await clean(cache);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("foreign_cache_dir");
    expect(r.stderr).toContain(`sha256/${sub}/notes.txt`);
    expect(tree(cache)).toEqual(before);
  });

  it("an empty folder is clean already (exit 0, nothing written); a missing one too", async () => {
    const cache = temp("svc-dl-empty-cache-");
    const r = await clean(cache, true);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).removed).toBe(0);
    expect(readdirSync(cache)).toEqual([]);
    const missing = join(cache, "nope");
    expect((await clean(missing)).code).toBe(0);
    expect(existsSync(missing)).toBe(false);
  });
});

describe("no path inside the cache is followed through a symlink", () => {
  it("a symlinked sha256/ is refused by install (nothing written through) and by clean", async () => {
    const cache = temp("svc-dl-cache-");
    expect((await installOne(cache)).r.code).toBe(0);
    const outside = temp("svc-dl-outside-");
    renameSync(join(cache, "sha256"), join(outside, "sha256"));
    symlinkSync(join(outside, "sha256"), join(cache, "sha256"));
    const before = tree(outside);

    const p = makeProject({ dir: "out", packs: ["sci-fi-props"] });
    const r = await install(shared.mock, { root: p.root, cache });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("unsafe_cache_dir");
    expect(tree(outside)).toEqual(before);

    const c = await clean(cache);
    expect(c.code).toBe(8);
    expect(c.stderr).toContain("foreign_cache_dir");
    expect(tree(outside)).toEqual(before);
  });

  it("an entry reached through a symlinked sha256/xx/ is not used, and nothing is written through it", async () => {
    const cache = temp("svc-dl-cache-");
    const { p, r } = await installOne(cache);
    expect(r.code, r.stderr).toBe(0);
    const [sub] = readdirSync(join(cache, "sha256"));
    const outside = temp("svc-dl-outside-");
    renameSync(join(cache, "sha256", sub ?? ""), join(outside, "xx"));
    symlinkSync(join(outside, "xx"), join(cache, "sha256", sub ?? ""));
    const before = tree(outside);

    const ci = makeProject(ONE_ASSET);
    cpSync(join(p.root, "svc-dl.lock"), join(ci.root, "svc-dl.lock"));
    const again = await install(shared.mock, { root: ci.root, cache }, ["--frozen"]);
    expect(again.code, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout) as InstallDoc;
    expect(doc.items[0]?.source).toBe("network"); // not read through the link
    expect(tree(outside)).toEqual(before);
  });
});

describe("cache clean on a cache it may not change", () => {
  it("a read-only cache is exit 8 with a file-system code, not exit 1 unexpected", async () => {
    const fs = mountTmpfs("4m");
    const cache = join(fs?.dir ?? temp("svc-dl-ro-parent-"), "cache");
    try {
      expect((await installOne(cache)).r.code).toBe(0);
      const [sub] = readdirSync(join(cache, "sha256"));
      // read-only for everyone where mounting is allowed; else (not root) by mode
      if (fs) expect(fs.remount("ro")).toBe(true);
      else if (!IS_ROOT) chmodSync(join(cache, "sha256", sub ?? ""), 0o555);
      else return; // root without mount rights: nothing here can make a directory read-only
      const before = tree(cache);
      const r = await clean(cache, true);
      expect(r.code).toBe(8);
      const err = JSON.parse(r.stderr.trim().split("\n").pop() ?? "").error;
      expect(err.code).toBe("permission_denied");
      // the hint is about the cache and the cause, not an output directory
      expect(err.hint).toContain(fs ? "read-only file system" : "writable");
      expect(err.hint).toContain("SVC_DL_CACHE_DIR");
      expect(tree(cache)).toEqual(before);
      const human = await clean(cache);
      expect(human.stderr).not.toContain("unexpected");
      expect(human.stderr).toContain(cache);
    } finally {
      fs?.unmount();
    }
  });
});
