import { ContentCache } from "../../cache/cache.js";
import { cacheDirFrom } from "../../cache/location.js";
import type { CacheCleanDocument } from "../../documents/commands.js";
import { counted } from "../../io/plural.js";
import type { Session } from "../../session.js";

/**
 * `svc-dl cache clean`: empties the cache, deleting only what svc-dl's layout names (the
 * directory and its CACHEDIR.TAG stay). `--json`: `{"dir","removed"}`. Throws FileSystemError
 * (exit 8): `unsafe_cache_dir` for a cache another user could write, `foreign_cache_dir` for a
 * directory holding anything svc-dl did not write (nothing deleted), `permission_denied` for a
 * read-only cache.
 */
export async function runCacheClean(session: Session): Promise<void> {
  const dir = await cacheDirFrom(session.ctx.env, session.ctx.cwd);
  const removed = ContentCache.existing(dir)?.clean() ?? 0;
  if (session.globals.json) session.printJson({ dir, removed } satisfies CacheCleanDocument);
  else session.reporter.info(`removed ${counted(removed, "cached file")} from ${dir}`);
}
