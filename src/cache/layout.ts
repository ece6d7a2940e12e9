import { FileSystemError } from "../errors/file-system-error.js";
import type { OwnedKind, OwnedLayout, OwnedRefusals } from "../io/owned-dir.js";

/** Subdirectory of the cache holding files by SHA-256 (`sha256/ab/abcdef…`). */
export const BY_HASH = "sha256";
/** Subdirectory for files being written (unique names; renamed into place when verified). */
export const TMP = "tmp";
/** A SHA-256 in lower-case hex: the name of a cache entry. */
export const SHA256 = /^[0-9a-f]{64}$/;
/** The name of a temp file in {@link TMP} (a UUID). */
const TMP_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;
/**
 * Subdirectory where svc-dl 0.1 kept a V8 code cache of the program. svc-dl never reads it
 * (no code is loaded from a cache); it stays svc-dl's, so a cache that has one is not foreign.
 */
export const COMPILE_CACHE = "compile-cache";
/** An entry of that code cache (Node 20): `program-<SHA-256 of the build>-<command>.v8`. */
export const CODE_ENTRY = /^program-[0-9a-f]{64}-[a-z0-9-]{1,40}\.v8$/;
/** safe-fs's temp file beside a {@link CODE_ENTRY} while it is written. */
export const CODE_ENTRY_TMP = /^\.program-[0-9a-f]{64}-[a-z0-9-]{1,40}\.v8\.\d+\.[0-9a-z]+\.tmp$/;
/** Names Node's own compile cache (Node 22+) wrote there: a directory per Node version, files in it. */
const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * The cache's layout (cli-contract "Untrusted text, paths and caches"): a `CACHEDIR.TAG` (the
 * Cache Directory Tagging Specification, https://bford.info/cachedir/, so backup tools skip
 * it), `sha256/<first two hex digits>/<sha256>` entries, `tmp/<uuid>.tmp` files and the
 * former code cache in `compile-cache/` (never read). Nothing else in the root is svc-dl's.
 */
export const CACHE_LAYOUT: OwnedLayout = {
  marker: "CACHEDIR.TAG",
  signature: "Signature: 8a477f597d28d172789f06886806bc55",
  markerText:
    "Signature: 8a477f597d28d172789f06886806bc55\n" +
    "# This file is a cache directory tag created by svc-dl.\n" +
    "# For information about cache directory tags, see https://bford.info/cachedir/\n",
  kind(path: readonly string[]): OwnedKind {
    const [top, sub, name] = path;
    if (top === BY_HASH) {
      if (path.length === 1) return "dir";
      if (sub === undefined || !/^[0-9a-f]{2}$/.test(sub)) return undefined;
      if (path.length === 2) return "dir";
      if (path.length === 3 && name !== undefined && SHA256.test(name) && name.startsWith(sub)) {
        return "file";
      }
      return undefined;
    }
    if (top === TMP) {
      if (path.length === 1) return "dir";
      if (path.length === 2 && sub !== undefined && TMP_NAME.test(sub)) return "file";
    }
    if (top === COMPILE_CACHE) return compileCacheKind(path.length, sub, name);
    return undefined;
  },
};

/** `compile-cache/`: the former program entries, and Node's own version directories and files. */
function compileCacheKind(depth: number, sub?: string, name?: string): OwnedKind {
  if (depth === 1) return "dir";
  if (sub === undefined) return undefined;
  if (depth === 2) {
    if (CODE_ENTRY.test(sub) || CODE_ENTRY_TMP.test(sub)) return "file";
    return NODE_NAME.test(sub) ? "dir" : undefined;
  }
  return depth === 3 && name !== undefined && NODE_NAME.test(name) ? "file" : undefined;
}

/**
 * What was refused on a cache: "use" by install, "check" by doctor, "clean", "list" (`cache ls`)
 * and "prune" (`cache prune`).
 */
export type CacheDoing = "use" | "check" | "clean" | "list" | "prune";

/** Whether refusing `doing` means nothing was deleted (the commands that delete). */
const DELETES = (doing: CacheDoing) => doing === "clean" || doing === "prune";

/**
 * The cache's refusals as errors: `unsafe_cache_dir` (a symlink, not a directory, not yours)
 * and `foreign_cache_dir` (an entry svc-dl did not write; `doing` says what was refused, see
 * {@link CacheDoing}). Both exit 8.
 */
export function cacheRefusals(root: string, doing: CacheDoing): OwnedRefusals {
  return {
    unsafe: (path, problem) =>
      new FileSystemError(`refusing the cache ${path}: it ${problem}`, {
        code: "unsafe_cache_dir",
        detail: { doing },
      }),
    foreign: (entry, why, unmarked) =>
      new FileSystemError(
        `refusing to ${doing === "check" ? "use" : doing} the cache ${root}: ${entry} is not svc-dl's (${why})${DELETES(doing) ? "; nothing was deleted" : ""}`,
        {
          code: "foreign_cache_dir",
          detail: { doing, unmarked, entry, root },
        },
      ),
  };
}
