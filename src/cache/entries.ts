import { lstatSync, lutimesSync, rmdirSync, type Stats, unlinkSync } from "node:fs";
import { findForeign, ownedPath } from "../io/owned-dir.js";
import { walkLayout } from "../io/owned-walk.js";
import { BY_HASH, CACHE_LAYOUT, type CacheDoing, cacheRefusals, SHA256 } from "./layout.js";

/** One file of the download cache, as `cache ls` and `cache prune` see it. */
export interface CacheEntry {
  /** Its name: the SHA-256 of its bytes (lower-case hex; not re-hashed here). */
  readonly sha256: string;
  /** Its size in bytes. */
  readonly size: number;
  /**
   * When a run last used it, in ms since the epoch: the later of its modification time (when it
   * was stored) and its access time (set by {@link markUsed} whenever install copies it out).
   */
  readonly lastUsedMs: number;
}

/**
 * The entries of the cache at `root` (cli-contract "Manifest, lock and cache": `cache ls`),
 * sorted by SHA-256. Only `sha256/<ab>/<sha256>` files of svc-dl's layout are listed (temp files
 * and the code cache are not entries). Reads only, never through a symlink. Throws
 * `foreign_cache_dir` (exit 8, naming the entry) when the root holds anything svc-dl did not
 * write, or lacks its CACHEDIR.TAG and holds anything, so a listing never vouches for a folder
 * that is not a cache; file-system errors as they are.
 */
export function listCacheEntries(root: string, doing: CacheDoing = "list"): CacheEntry[] {
  const foreign = findForeign(root, CACHE_LAYOUT);
  if (foreign) {
    throw cacheRefusals(root, doing).foreign(foreign.entry, foreign.why, foreign.unmarked);
  }
  const entries: CacheEntry[] = [];
  walkLayout(root, CACHE_LAYOUT, () => false, {
    file: (full, path) => {
      const [top, , name] = path;
      if (top !== BY_HASH || path.length !== 3 || name === undefined || !SHA256.test(name)) return;
      const st = statIfFile(full);
      if (st === undefined) return; // removed meanwhile
      entries.push({
        sha256: name,
        size: st.size,
        lastUsedMs: Math.max(st.mtimeMs, st.atimeMs),
      });
    },
  });
  return entries.sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
}

/**
 * Removes the entries named in `doomed` from the cache at `root` (cli-contract "Manifest, lock
 * and cache": `cache prune`), each only when it is still a regular file at its layout path with
 * no symlink on the way; a directory `sha256/<ab>` left empty is removed too. An entry removed
 * meanwhile by another run is skipped. Returns the entries really removed. File-system errors
 * (EACCES, EROFS) are thrown as they are, after what was removed so far.
 */
export function removeCacheEntries(root: string, doomed: readonly CacheEntry[]): CacheEntry[] {
  const removed: CacheEntry[] = [];
  const touched = new Set<string>();
  for (const entry of doomed) {
    if (!SHA256.test(entry.sha256)) continue;
    const sub = entry.sha256.slice(0, 2);
    const full = ownedPath(root, [BY_HASH, sub, entry.sha256]);
    if (full === undefined || statIfFile(full) === undefined) continue;
    try {
      unlinkSync(full);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    removed.push(entry);
    touched.add(sub);
  }
  for (const sub of touched) {
    const dir = ownedPath(root, [BY_HASH, sub]);
    if (dir === undefined) continue;
    try {
      rmdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") throw err;
    }
  }
  return removed;
}

/**
 * Records that a run used the entry at `entry` (its full path, checked by the caller): sets its
 * access time to now, keeping its modification time, without following a symlink. What
 * `cache prune --max-age` measures does not then depend on the file system's `atime` mount
 * option. Never throws: a cache that cannot be changed only keeps an older time.
 */
export function markUsed(entry: string, now: Date = new Date()): void {
  try {
    const st = lstatSync(entry);
    if (st.isFile()) lutimesSync(entry, now, st.mtime);
  } catch {
    // read-only cache, or the entry went away: nothing to record
  }
}

function statIfFile(full: string): Stats | undefined {
  try {
    const st = lstatSync(full);
    return st.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}
