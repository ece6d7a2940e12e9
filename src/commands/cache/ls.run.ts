import { ContentCache } from "../../cache/cache.js";
import { type CacheEntry, listCacheEntries } from "../../cache/entries.js";
import { cacheDirFrom } from "../../cache/location.js";
import type { CacheLsDocument } from "../../documents/commands.js";
import { counted } from "../../io/plural.js";
import { formatBytes } from "../../io/progress-format.js";
import { renderTable } from "../../io/table.js";
import type { Session } from "../../session.js";
import { type GivenLock, readGivenLocks } from "./locks.js";

/** Options of `cache ls`. */
export interface CacheLsOptions {
  /** `--lock FILE`, repeatable: say which of these locks name each entry. */
  lock?: string[];
}

/**
 * `svc-dl cache ls [--json] [--lock FILE]...` (cli-contract "Manifest, lock and cache"): the
 * cache's entries with SHA-256, size, last use and, for each, which given locks name it. Human:
 * a table on stdout and a total on stderr. `--json`: `{"dir","entries":[{"sha256","size",
 * "last_used","locks"}],"total_bytes"}` (`last_used` ISO 8601; `locks` the given paths naming
 * the entry). A cache not created yet lists nothing. Throws UsageError (exit 2) for a missing or
 * invalid lock; FileSystemError (exit 8) `unsafe_cache_dir` / `foreign_cache_dir` for a root
 * that is not a private svc-dl cache.
 */
export async function runCacheLs(session: Session, opts: CacheLsOptions): Promise<void> {
  const dir = await cacheDirFrom(session.ctx.env, session.ctx.cwd);
  const locks = readGivenLocks(opts.lock ?? [], session.ctx.cwd, "--lock");
  const entries = ContentCache.existing(dir) ? listCacheEntries(dir, "list") : [];
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  const rows = entries.map((e) => ({ entry: e, locks: namingLocks(e, locks) }));
  if (session.globals.json) {
    session.printJson({
      dir,
      entries: rows.map(({ entry, locks: named }) => ({
        sha256: entry.sha256,
        size: entry.size,
        last_used: new Date(entry.lastUsedMs).toISOString(),
        locks: named,
      })),
      total_bytes: total,
    } satisfies CacheLsDocument);
    return;
  }
  if (entries.length > 0) {
    const header = ["SHA256", "SIZE", "LAST USED", ...(locks.length > 0 ? ["LOCKS"] : [])];
    session.print(
      renderTable(
        header,
        rows.map(({ entry, locks: named }) => [
          entry.sha256,
          formatBytes(entry.size),
          new Date(entry.lastUsedMs).toISOString().slice(0, 19).replace("T", " "),
          ...(locks.length > 0 ? [named.length > 0 ? named.join(", ") : "-"] : []),
        ]),
      ),
    );
  }
  session.reporter.info(
    `${counted(entries.length, "cached file")}, ${formatBytes(total)}, in ${dir}`,
  );
}

/** The paths of the given locks that name `entry`. */
function namingLocks(entry: CacheEntry, locks: readonly GivenLock[]): string[] {
  return locks.filter((l) => l.sha256s.has(entry.sha256)).map((l) => l.path);
}
