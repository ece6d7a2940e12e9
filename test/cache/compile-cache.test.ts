import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  commandRoute,
  compileCacheDir,
  loadProgram,
  useNodeCompileCache,
} from "../../src/cache/compile-cache.js";
import { CACHE_LAYOUT, CODE_ENTRY } from "../../src/cache/layout.js";
import { findForeign } from "../../src/io/owned-dir.js";
import { IS_ROOT } from "../helpers/mounts.js";

function temp(prefix = "svc-dl-cc-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

const cwd = () => tmpdir();
const mode = (p: string) => statSync(p).mode & 0o777;

/** A small CommonJS "program" with a function to compile, and a fresh cache dir for it. */
function aProgram(body = "exports.answer = () => 6 * 7; exports.req = typeof require;") {
  const d = temp();
  const file = join(d, "program.cjs");
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname) {${body}\n})`);
  const cache = join(d, "cache");
  mkdirSync(cache, { mode: 0o700 });
  return { file, cache };
}

const entries = (dir: string) => readdirSync(dir).filter((n) => CODE_ENTRY.test(n));

describe("the compile-cache directory", () => {
  it("is compile-cache/ in svc-dl's cache directory, created 0700 with the cache's marker", async () => {
    const root = join(temp(), "cache");
    const dir = await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd);
    expect(dir).toBe(join(root, "compile-cache"));
    expect(mode(root)).toBe(0o700);
    expect(mode(join(root, "compile-cache"))).toBe(0o700);
    expect(readFileSync(join(root, "CACHEDIR.TAG"), "utf8")).toContain("Signature:");
    // the download cache's layout names it: `cache clean` and doctor see no foreign entry
    writeFileSync(join(root, "compile-cache", `program-${"a".repeat(64)}-whoami.v8`), "x");
    expect(findForeign(root, CACHE_LAYOUT)).toBeUndefined();
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE: nothing is created", async () => {
    const root = join(temp(), "cache");
    const env = { SVC_DL_CACHE_DIR: root, NODE_DISABLE_COMPILE_CACHE: "1" };
    expect(await compileCacheDir(env, cwd)).toBeUndefined();
    expect(existsSync(root)).toBe(false);
  });

  it("a planted symlink is not used nor followed", async () => {
    const root = temp();
    const victim = temp("svc-dl-victim-");
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd)).toBeDefined();
    // the directory replaced by a symlink to someone else's folder
    const link = join(root, "compile-cache");
    rmdirSync(link);
    symlinkSync(victim, link);
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd)).toBeUndefined();
    // a symlinked cache root is refused as well
    const other = join(temp(), "linked");
    symlinkSync(temp(), other);
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: other }, cwd)).toBeUndefined();
    expect(readdirSync(victim)).toEqual([]);
  });

  it("a directory that is not ours (another owner, writable by others, unmarked) is not used", async () => {
    const root = temp();
    const dir = await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd);
    expect(dir).toBeDefined();
    chmodSync(dir as string, 0o777);
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd)).toBeUndefined();
    chmodSync(dir as string, 0o700);
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd)).toBe(dir);
    if (IS_ROOT) {
      chownSync(dir as string, 65534, 65534);
      expect(await compileCacheDir({ SVC_DL_CACHE_DIR: root }, cwd)).toBeUndefined();
    }
    // a folder svc-dl did not create (files of someone else, no marker) is left alone
    const theirs = temp();
    writeFileSync(join(theirs, "notes.txt"), "mine\n");
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: theirs }, cwd)).toBeUndefined();
    expect(readdirSync(theirs)).toEqual(["notes.txt"]);
  });

  it("an unwritable cache root gives no cache, and no error", async () => {
    const file = join(temp(), "a-file");
    writeFileSync(file, "");
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: join(file, "cache") }, cwd)).toBeUndefined();
    const failingCwd = () => {
      throw new Error("ENOENT: uv_cwd");
    };
    expect(await compileCacheDir({ SVC_DL_CACHE_DIR: "relative" }, failingCwd)).toBeUndefined();
  });
});

describe("loadProgram (Node 20: a CommonJS bundle with a V8 code cache entry)", () => {
  it("runs the bundle, writes its entry after the run, and uses it next time", () => {
    const { file, cache } = aProgram();
    const first = loadProgram<{ answer(): number; req: string }>(file, cache, "whoami");
    expect(first.fromCache).toBe(false);
    expect(first.exports.answer()).toBe(42);
    expect(first.exports.req).toBe("function");
    expect(entries(cache)).toEqual([]);
    first.save();
    const [entry] = entries(cache);
    expect(entry).toMatch(/-whoami\.v8$/);
    expect(mode(join(cache, entry as string))).toBe(0o600);
    const second = loadProgram<{ answer(): number }>(file, cache, "whoami");
    expect(second.fromCache).toBe(true);
    expect(second.exports.answer()).toBe(42);
    // each command has its own entry
    expect(loadProgram(file, cache, "pack-get").fromCache).toBe(false);
  });

  it("a corrupt, truncated or foreign entry is rejected, the run works and the entry is rebuilt", () => {
    const { file, cache } = aProgram();
    loadProgram(file, cache, "whoami").save();
    const path = join(cache, entries(cache)[0] as string);
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 5] = (flipped[flipped.length - 5] ?? 0) ^ 0xff;
    // (data that passes the hash but that V8 refuses: test/bin/compile-cache.test.ts, in a
    // fresh process, as V8 reuses a script it compiled already in this one)
    for (const bad of [flipped, good.subarray(0, 30), Buffer.alloc(0), Buffer.from("garbage")]) {
      writeFileSync(path, bad);
      const run = loadProgram<{ answer(): number }>(file, cache, "whoami");
      expect(run.fromCache).toBe(false);
      expect(run.exports.answer()).toBe(42);
      run.save();
      expect(readFileSync(path).equals(bad)).toBe(false);
      expect(loadProgram(file, cache, "whoami").fromCache).toBe(true);
    }
  });

  it("an entry of a changed bundle is not used; the three builds written last keep theirs", () => {
    const { file, cache } = aProgram();
    const hour = 3600;
    const now = Date.now() / 1000;
    const builds: string[][] = [];
    for (let k = 1; k <= 5; k++) {
      writeFileSync(file, `(function (exports) { exports.answer = () => ${40 + k}; })`);
      const run = loadProgram<{ answer(): number }>(file, cache, "whoami");
      expect(run.fromCache).toBe(false);
      expect(run.exports.answer()).toBe(40 + k);
      if (k === 5) {
        // a temp file of a run killed two hours ago, one being written now, and not ours
        const tmp = (age: number) => {
          const name = `.program-${"ab".repeat(32)}-whoami.v8.${age}.x1.tmp`;
          writeFileSync(join(cache, name), "");
          utimesSync(join(cache, name), now - age, now - age);
          return name;
        };
        tmp(2 * hour);
        const fresh = tmp(0);
        writeFileSync(join(cache, "notes.txt"), "mine");
        run.save();
        expect(
          readdirSync(cache)
            .filter((n) => !CODE_ENTRY.test(n))
            .sort(),
        ).toEqual([fresh, "notes.txt"]);
      } else {
        run.save();
      }
      const added = entries(cache).filter((n) => !builds.flat().includes(n));
      for (const n of added)
        utimesSync(join(cache, n), now - (10 - k) * hour, now - (10 - k) * hour);
      builds.push(added);
    }
    // builds 3 and 4 (written last before it) and 5 (this run's) are kept; 1 and 2 removed
    expect(entries(cache).sort()).toEqual(builds.slice(2).flat().sort());
  });

  it("an unwritable cache dir: the program runs, save() says nothing", () => {
    const { file } = aProgram();
    const missing = join(temp(), "gone");
    const run = loadProgram<{ answer(): number }>(file, missing, "whoami");
    expect(run.exports.answer()).toBe(42);
    expect(() => run.save()).not.toThrow();
    expect(existsSync(missing)).toBe(false);
  });
});

describe("which runs use an entry", () => {
  it("commands do, by their command words; help and command-less runs do not", () => {
    expect(commandRoute(["pack", "get", "low-poly-forest", "-o", "out/"])).toBe("pack-get");
    expect(commandRoute(["--no-color", "whoami", "--json"])).toBe("whoami");
    expect(commandRoute(["whoami"])).toBe("whoami");
    expect(commandRoute(["--help"])).toBeUndefined();
    expect(commandRoute(["pack", "get", "-h"])).toBeUndefined();
    expect(commandRoute(["help", "pack"])).toBeUndefined();
    expect(commandRoute([])).toBeUndefined();
    expect(commandRoute(["../../x"])).toBeUndefined();
  });

  it("Node's own compile cache is the route exactly where Node has module.enableCompileCache", () => {
    const hasIt = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache;
    expect(useNodeCompileCache(temp())).toBe(hasIt === "function");
  });
});
