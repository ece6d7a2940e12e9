import { ContentCache } from "../../cache/cache.js";
import { type CacheEntry, listCacheEntries, removeCacheEntries } from "../../cache/entries.js";
import { cacheDirFrom } from "../../cache/location.js";
import type { CachePruneDocument } from "../../documents/commands.js";
import { fsError } from "../../errors/fs-error.js";
import { counted } from "../../io/plural.js";
import { formatBytes } from "../../io/progress-format.js";
import type { Session } from "../../session.js";
import { readGivenLocks } from "./locks.js";

/** Options of `cache prune`. */
export interface CachePruneOptions {
  /** `--keep-lock FILE`, repeatable, at least one: entries these locks name are kept. */
  keepLock: string[];
  /** `--max-age DURATION` in seconds: remove only entries not used for that long. */
  maxAge?: number;
  /** `--dry-run`: say what would be removed, remove nothing. */
  dryRun?: boolean;
}

/**
 * `svc-dl cache prune --keep-lock FILE... [--max-age DURATION] [--dry-run]` (cli-contract
 * "Manifest, lock and cache"): removes every cache entry no given lock names (with `--max-age`,
 * only those also not used for that long), only files of svc-dl's layout, and says what it
 * freed: one line per entry and a total on stderr. `--json`: `{"dir","dry_run","removed":[{
 * "sha256","size","last_used"}],"freed_bytes","kept"}`. Every lock is read before anything is
 * deleted. Throws UsageError (exit 2) for a missing or invalid lock; FileSystemError (exit 8):
 * `unsafe_cache_dir`, `foreign_cache_dir` (nothing deleted), `permission_denied` for a cache that
 * cannot be changed (after what could be removed).
 */
export async function runCachePrune(session: Session, opts: CachePruneOptions): Promise<void> {
  const dir = await cacheDirFrom(session.ctx.env, session.ctx.cwd);
  const locks = readGivenLocks(opts.keepLock, session.ctx.cwd, "--keep-lock");
  const keep = new Set(locks.flatMap((l) => [...l.sha256s]));
  const entries = ContentCache.existing(dir) ? listCacheEntries(dir, "prune") : [];
  const now = session.ctx.clock?.now() ?? Date.now();
  const oldest = opts.maxAge === undefined ? Number.POSITIVE_INFINITY : now - opts.maxAge * 1000;
  const doomed = entries.filter((e) => !keep.has(e.sha256) && e.lastUsedMs <= oldest);
  let removed: CacheEntry[] = doomed;
  if (!opts.dryRun) {
    try {
      removed = removeCacheEntries(dir, doomed);
    } catch (err) {
      throw fsError(`cannot prune the cache ${dir}`, err, { during: "cache" });
    }
  }
  const freed = removed.reduce((sum, e) => sum + e.size, 0);
  const kept = entries.length - removed.length;
  if (session.globals.json) {
    session.printJson({
      dir,
      dry_run: opts.dryRun === true,
      removed: removed.map((e) => ({
        sha256: e.sha256,
        size: e.size,
        last_used: new Date(e.lastUsedMs).toISOString(),
      })),
      freed_bytes: freed,
      kept,
    } satisfies CachePruneDocument);
    return;
  }
  const verb = opts.dryRun ? "would remove" : "removed";
  for (const e of removed) session.reporter.info(`${verb} ${e.sha256} (${formatBytes(e.size)})`);
  session.reporter.info(
    `${verb} ${counted(removed.length, "cached file")} (${formatBytes(freed)}) from ${dir}; kept ${kept}`,
  );
}
