import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { markUsed } from "../../src/cache/entries.js";
import { CacheLsDocumentSchema, CachePruneDocumentSchema } from "../../src/documents.js";
import { runCli } from "../helpers/cli.js";
import { downloadRequests, install, makeProject, type Project } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

/** `cache ls` and `cache prune` (cli-contract "Manifest, lock and cache"), on a shared cache. */

const shared = useMockService({ packSize: 16 * 1024, assetSize: 8 * 1024 });
const DAY = 86_400_000;

/** Every path below `dir`, sorted (symlinks not followed). */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

/** The SHA-256s a project's lock names. */
function locked(p: Project): string[] {
  const lock = JSON.parse(readFileSync(join(p.root, "svc-dl.lock"), "utf8"));
  return lock.items.map((i: { sha256: string }) => i.sha256);
}

function entryPath(cache: string, sha256: string): string {
  return join(cache, "sha256", sha256.slice(0, 2), sha256);
}

/** Sets an entry's access and modification times to `ms`. */
function age(cache: string, sha256: string, ms: number): void {
  utimesSync(entryPath(cache, sha256), new Date(ms), new Date(ms));
}

function cache(cacheDir: string, args: string[], cwd?: string) {
  return runCli(["cache", ...args], {
    env: { SVC_DL_CACHE_DIR: cacheDir },
    ...(cwd ? { cwd } : {}),
  });
}

/** Three projects sharing one cache: an asset, a pack, and both; each installed once. */
async function threeProjects() {
  const a = makeProject({ dir: "out", assets: ["free-sample-cube"] });
  const b = makeProject({ dir: "out", packs: ["sci-fi-props"] });
  const c = makeProject({ dir: "out", packs: ["desert-rocks"] });
  const cacheDir = a.cache;
  for (const p of [a, b, c]) {
    p.cache = cacheDir;
    const r = await install(shared.mock, p);
    expect(r.code, r.stderr).toBe(0);
  }
  return { a, b, c, cacheDir };
}

describe("cache ls", () => {
  it("lists every entry with size, last use and the given locks that name it", async () => {
    const { a, b, c, cacheDir } = await threeProjects();
    const [asset] = locked(a);
    const [pack] = locked(b);
    const r = await cache(cacheDir, [
      "ls",
      "--json",
      "--lock",
      join(a.root, "svc-dl.lock"),
      "--lock",
      join(b.root, "svc-dl.lock"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const doc = CacheLsDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.dir).toBe(cacheDir);
    expect(doc.entries).toHaveLength(3);
    const bySha = new Map(doc.entries.map((e) => [e.sha256, e]));
    expect(bySha.get(asset ?? "")?.locks).toEqual([join(a.root, "svc-dl.lock")]);
    expect(bySha.get(pack ?? "")?.locks).toEqual([join(b.root, "svc-dl.lock")]);
    expect(bySha.get(locked(c)[0] ?? "")?.locks).toEqual([]);
    expect(bySha.get(asset ?? "")?.size).toBe(statSync(entryPath(cacheDir, asset ?? "")).size);
    expect(doc.total_bytes).toBe(doc.entries.reduce((s, e) => s + e.size, 0));

    const human = await cache(cacheDir, ["ls", "--lock", "svc-dl.lock"], a.root);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("LOCKS");
    expect(human.stdout).toMatch(new RegExp(`${asset}\\s.*svc-dl\\.lock`));
    expect(human.stderr).toContain("3 cached files");
  });

  it("a cache not created yet lists nothing; a copy out of the cache counts as a use", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "svc-dl-cache-")), "none");
    const empty = await cache(missing, ["ls", "--json"]);
    expect(empty.code, empty.stderr).toBe(0);
    expect(CacheLsDocumentSchema.parse(JSON.parse(empty.stdout)).entries).toEqual([]);
    expect(existsSync(missing)).toBe(false);

    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const [sha] = locked(p);
    age(p.cache, sha ?? "", Date.now() - 40 * DAY);
    rmSync(join(p.root, "out"), { recursive: true });
    const again = await install(shared.mock, p, ["--frozen"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).items[0].source).toBe("cache");
    const doc = CacheLsDocumentSchema.parse(
      JSON.parse((await cache(p.cache, ["ls", "--json"])).stdout),
    );
    expect(Date.parse(doc.entries[0]?.last_used ?? "")).toBeGreaterThan(Date.now() - DAY);
  });
});

describe("markUsed", () => {
  it("sets the access time to now and keeps the modification time, whatever the mount's atime option", () => {
    const file = join(mkdtempSync(join(tmpdir(), "svc-dl-used-")), "entry");
    writeFileSync(file, "x");
    const old = Date.now() - 40 * DAY;
    utimesSync(file, new Date(old), new Date(old));
    const now = new Date(Date.now() - DAY / 2);
    markUsed(file, now);
    const st = statSync(file);
    expect(Math.round(st.atimeMs)).toBe(now.getTime());
    expect(Math.round(st.mtimeMs)).toBe(old);
    expect(() => markUsed(join(file, "missing"))).not.toThrow();
  });
});

describe("cache prune", () => {
  it("removes only what no kept lock names (--dry-run first), and the kept lock still installs with zero requests", async () => {
    const { a, b, c, cacheDir } = await threeProjects();
    const before = tree(cacheDir);
    const dry = await cache(
      cacheDir,
      ["prune", "--keep-lock", "svc-dl.lock", "--dry-run", "--json"],
      a.root,
    );
    expect(dry.code, dry.stderr).toBe(0);
    const planned = CachePruneDocumentSchema.parse(JSON.parse(dry.stdout));
    expect(planned.dry_run).toBe(true);
    expect(planned.removed.map((e) => e.sha256).sort()).toEqual(
      [...locked(b), ...locked(c)].sort(),
    );
    expect(planned.kept).toBe(1);
    expect(tree(cacheDir)).toEqual(before);

    const r = await cache(cacheDir, ["prune", "--keep-lock", join(a.root, "svc-dl.lock")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`removed ${locked(b)[0]}`);
    expect(r.stderr).toMatch(/removed 2 cached files \(.*\) from .*; kept 1/);
    expect(existsSync(entryPath(cacheDir, locked(a)[0] ?? ""))).toBe(true);
    for (const sha of [...locked(b), ...locked(c)]) {
      expect(existsSync(entryPath(cacheDir, sha))).toBe(false);
    }
    expect(readdirSync(join(cacheDir, "sha256"))).toEqual([(locked(a)[0] ?? "").slice(0, 2)]);
    expect(existsSync(join(cacheDir, "CACHEDIR.TAG"))).toBe(true);

    rmSync(join(a.root, "out"), { recursive: true });
    const from = shared.mock.requests.length;
    const frozen = await install(shared.mock, a, ["--frozen"], { SVC_API_KEY: undefined });
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(shared.mock.requests.length - from).toBe(0);
    expect(downloadRequests(shared.mock).length).toBeGreaterThan(0); // the mock does log
  });

  it("--max-age keeps entries no lock names that were used recently; several locks add up", async () => {
    const { a, b, c, cacheDir } = await threeProjects();
    const [packB] = locked(b);
    const [packC] = locked(c);
    age(cacheDir, packB ?? "", Date.now() - 40 * DAY);
    age(cacheDir, packC ?? "", Date.now() - 2 * DAY);
    const r = await cache(cacheDir, [
      "prune",
      "--keep-lock",
      join(a.root, "svc-dl.lock"),
      "--max-age",
      "30d",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const doc = CachePruneDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.removed.map((e) => e.sha256)).toEqual([packB]);
    expect(doc.freed_bytes).toBe(doc.removed[0]?.size);
    expect(existsSync(entryPath(cacheDir, packC ?? ""))).toBe(true);

    const both = await cache(cacheDir, [
      "prune",
      "--keep-lock",
      join(a.root, "svc-dl.lock"),
      "--keep-lock",
      join(c.root, "svc-dl.lock"),
      "--json",
    ]);
    expect(CachePruneDocumentSchema.parse(JSON.parse(both.stdout)).removed).toEqual([]);
    expect(existsSync(entryPath(cacheDir, packC ?? ""))).toBe(true);
  });

  it("a missing or invalid lock stops it before anything is removed (exit 2); --keep-lock is required", async () => {
    const { a, cacheDir } = await threeProjects();
    const before = tree(cacheDir);
    const missing = await cache(cacheDir, ["prune", "--keep-lock", "nope.lock"], a.root);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.lock: no such lock file");
    writeFileSync(join(a.root, "bad.lock"), '{"lockfileVersion":1,"items":[{"kind":"pack"}]}\n');
    const bad = await cache(cacheDir, ["prune", "--keep-lock", "bad.lock"], a.root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid_lock");
    const none = await cache(cacheDir, ["prune"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--keep-lock");
    const age0 = await cache(
      cacheDir,
      ["prune", "--keep-lock", "svc-dl.lock", "--max-age", "soon"],
      a.root,
    );
    expect(age0.code).toBe(2);
    expect(tree(cacheDir)).toEqual(before);
  });

  it("only svc-dl's layout: a stray file or a foreign root is refused (exit 8), nothing deleted", async () => {
    const { a, cacheDir } = await threeProjects();
    const [sub] = readdirSync(join(cacheDir, "sha256"));
    writeFileSync(join(cacheDir, "sha256", sub ?? "", "notes.txt"), "mine\n");
    const before = tree(cacheDir);
    const r = await cache(cacheDir, ["prune", "--keep-lock", join(a.root, "svc-dl.lock")]);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("foreign_cache_dir");
    expect(r.stderr).toContain(`sha256/${sub}/notes.txt`);
    expect(r.stderr).toContain("nothing was deleted");
    expect(tree(cacheDir)).toEqual(before);
    const ls = await cache(cacheDir, ["ls"]);
    expect(ls.code).toBe(8);
    expect(ls.stderr).toContain("refusing to list the cache");

    const project = mkdtempSync(join(tmpdir(), "svc-dl-victim-"));
    mkdirSync(join(project, "sha256", "ab"), { recursive: true });
    writeFileSync(join(project, "sha256", "ab", "ab".padEnd(64, "0")), "not a cache\n");
    const foreign = await cache(project, ["prune", "--keep-lock", join(a.root, "svc-dl.lock")]);
    expect(foreign.code).toBe(8);
    expect(foreign.stderr).toContain("has no CACHEDIR.TAG");
    expect(tree(project)).toHaveLength(3);
  });
});
