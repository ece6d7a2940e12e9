import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import * as nodeModule from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { ensureOwnedDirs, type OwnedRefusals, openOwnedDir } from "../io/owned-dir.js";
import {
  readRegularBytes,
  removeEntry,
  unsafeDirProblem,
  writePrivateFileAtomic,
} from "../io/safe-fs.js";
import { CACHE_LAYOUT, CODE_ENTRY, CODE_ENTRY_TMP, COMPILE_CACHE } from "./layout.js";
import { cacheDirFrom } from "./location.js";

/**
 * The program's V8 code cache (docs/performance.md "Start-up"): compiled bytecode of the
 * program kept between runs in `<cache dir>/compile-cache/`, so a run skips most of compiling
 * its JavaScript. Used by bin/svc-dl.js only, never by the library (its host decides about its
 * own compilation). A cache that cannot be used is skipped without a word: it never fails a
 * command nor prints anything.
 */

/** Refusals of the owned-dir rules as plain errors: every one means "no cache this run". */
const QUIET: OwnedRefusals = {
  unsafe: (path, problem) => new Error(`${path} ${problem}`),
  foreign: (entry, why) => new Error(`${entry}: ${why}`),
};

/** First bytes of an entry, then the SHA-256 of the V8 data, then the data. */
const MAGIC = Buffer.from("svc-dl-code-cache-1\n");
const HASH_BYTES = 32;
/** Larger entries are not read (the program's cache is about 1.5 MiB). */
const MAX_ENTRY_BYTES = 64 << 20;

/**
 * The compile-cache directory to use, or undefined for none: `compile-cache/` in svc-dl's
 * cache directory (src/cache/location.ts: `SVC_DL_CACHE_DIR`, else the OS cache directory),
 * created 0700 through the owned-directory rules (src/io/owned-dir.ts: the root must be
 * private and svc-dl's, nothing is followed through a symlink) and itself private and ours
 * ({@link unsafeDirProblem}). `NODE_DISABLE_COMPILE_CACHE` (Node's own switch, any non-empty
 * value) turns it off. Never throws.
 */
export async function compileCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  cwd: () => string,
): Promise<string | undefined> {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const root = await cacheDirFrom(env, cwd());
    openOwnedDir(root, CACHE_LAYOUT, QUIET);
    const dir = ensureOwnedDirs(root, [COMPILE_CACHE], QUIET);
    return unsafeDirProblem(lstatSync(dir)) === undefined ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Node 22.1+: turns on Node's own compile cache (`module.enableCompileCache`, which covers
 * the ES modules of dist/) in `dir` and returns true. Returns false on a Node without it
 * (Node 20), where {@link loadProgram} is the route. Never throws.
 */
export function useNodeCompileCache(dir: string): boolean {
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => unknown })
    .enableCompileCache;
  if (typeof enable !== "function") return false;
  try {
    enable(dir);
  } catch {
    // a cache Node cannot use: the run goes on without one
  }
  return true;
}

/** The program loaded by {@link loadProgram}. */
export interface LoadedProgram<T> {
  /** The bundle's `module.exports`. */
  readonly exports: T;
  /** True when V8 accepted a cache entry for it (nothing compiled from scratch up front). */
  readonly fromCache: boolean;
  /**
   * Writes the cache entry when there was none (or V8 refused it): the code compiled up to
   * now, so call it after the run. Removes the entries of older builds. Never throws.
   */
  save(): void;
}

/**
 * The command a run's entry is for: its command words (`pack-get`, `whoami`; options before
 * them skipped), or undefined for a run that asks for help (`--help`, `-h`, `help`) or names no
 * command: those load only the help code as ES modules, cheaper than a cache of the program.
 * Each command's entry holds only the code that command ran.
 */
export function commandRoute(args: readonly string[]): string | undefined {
  if (args.includes("--help") || args.includes("-h")) return undefined;
  const words: string[] = [];
  for (const a of args) {
    if (words.length === 0 && a.startsWith("-")) continue;
    if (words.length === 2 || !/^[a-z][a-z0-9-]{0,19}$/.test(a)) break;
    words.push(a);
  }
  return words.length === 0 || words[0] === "help" ? undefined : words.join("-");
}

/**
 * Node 20 (no `module.enableCompileCache`): runs the CommonJS bundle `file` (dist/program.cjs,
 * written as the function Node's CommonJS loader wraps a module in: `(function (exports,
 * require, module, __filename, __dirname) {…})`) as a `vm.Script` with the V8 code cache entry
 * of `dir` for `route` ({@link commandRoute}), with `require` relative to `file`. The
 * entry is named by a SHA-256 of Node's version, the architecture and the source; it is used
 * only when its own SHA-256 matches (a torn or corrupt file is ignored) and V8 accepts it.
 * Throws what reading `file` or running the bundle throws; never because of the cache.
 */
export function loadProgram<T>(file: string, dir: string, route: string): LoadedProgram<T> {
  const bytes = readFileSync(file);
  const build = createHash("sha256")
    .update(`${process.version}\0${process.arch}\0`)
    .update(bytes)
    .digest("hex");
  const entry = join(dir, `program-${build}-${/^[a-z0-9-]{1,40}$/.test(route) ? route : "run"}.v8`);
  const cachedData = readEntry(entry);
  const script = new Script(bytes.toString("utf8"), { filename: file, cachedData });
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(
    module.exports,
    module.exports,
    nodeModule.createRequire(file),
    module,
    file,
    dirname(file),
  );
  return {
    exports: module.exports,
    fromCache,
    save() {
      if (!fromCache) writeEntry(entry, `program-${build}-`, script);
    },
  };
}

/** The V8 data of the entry at `path`, or undefined when missing, unreadable or corrupt. */
function readEntry(path: string): Buffer | undefined {
  try {
    const bytes = readRegularBytes(path, MAX_ENTRY_BYTES);
    if (bytes === undefined || bytes.length <= MAGIC.length + HASH_BYTES) return undefined;
    if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const data = bytes.subarray(MAGIC.length + HASH_BYTES);
    const hash = createHash("sha256").update(data).digest();
    return hash.equals(bytes.subarray(MAGIC.length, MAGIC.length + HASH_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the entry at `path` with `script`'s code cache (atomically; not fsynced: a torn
 * entry fails its hash and is rebuilt), then {@link pruneEntries}.
 */
function writeEntry(path: string, build: string, script: Script): void {
  try {
    const data = script.createCachedData();
    const hash = createHash("sha256").update(data).digest();
    writePrivateFileAtomic(path, Buffer.concat([MAGIC, hash, data]), { durable: false });
    pruneEntries(dirname(path), build);
  } catch {
    // no cache next time either: the program works the same
  }
}

/** Builds whose entries are kept: this one and the two written last (several installs). */
const KEEP_BUILDS = 3;
/** A temp file older than this was left by a run killed while writing its entry. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes from `dir` the entries of builds other than `build` (the `program-<sha256>-` prefix
 * of the entry just written) beyond the {@link KEEP_BUILDS} most recently written, and stale
 * temp files: only names of the program's own patterns (src/cache/layout.ts), never following
 * a symlink. Two installs of different versions thus keep their entries instead of replacing
 * each other's at every run.
 */
function pruneEntries(dir: string, build: string): void {
  const newest = new Map<string, number>();
  const entries: { name: string; build: string }[] = [];
  for (const name of readdirSync(dir)) {
    const st = lstatSync(join(dir, name));
    if (!st.isFile()) continue;
    if (CODE_ENTRY_TMP.test(name) && Date.now() - st.mtimeMs > STALE_TEMP_MS) {
      removeEntry(join(dir, name));
    } else if (CODE_ENTRY.test(name)) {
      const of = name.slice(0, build.length);
      entries.push({ name, build: of });
      newest.set(of, Math.max(newest.get(of) ?? 0, of === build ? Infinity : st.mtimeMs));
    }
  }
  const kept = new Set(
    [...newest.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, KEEP_BUILDS)
      .map(([b]) => b),
  );
  for (const e of entries) if (!kept.has(e.build)) removeEntry(join(dir, e.name));
}
