import { Command } from "commander";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/** The cache directory of this run: `SVC_DL_CACHE_DIR`, else the OS cache directory. */
async function cacheDir(session: Session): Promise<string> {
  const { cacheDirFrom } = await import("../../cache/location.js");
  return cacheDirFrom(session.ctx.env, session.ctx.cwd);
}

/** `svc-dl cache dir`: prints the cache's path on stdout (`--json`: `{"dir"}`). */
export async function runCacheDir(session: Session): Promise<void> {
  const dir = await cacheDir(session);
  if (session.globals.json) session.printJson({ dir });
  else session.print(dir);
}

/**
 * `svc-dl cache clean`: empties the cache, deleting only what svc-dl's layout names (the
 * directory and its CACHEDIR.TAG stay). `--json`: `{"dir","removed"}`. Throws FileSystemError
 * (exit 8): `unsafe_cache_dir` for a cache another user could write, `foreign_cache_dir` for a
 * directory holding anything svc-dl did not write (nothing deleted), `permission_denied` for a
 * read-only cache.
 */
export async function runCacheClean(session: Session): Promise<void> {
  const { ContentCache } = await import("../../cache/cache.js");
  const dir = await cacheDir(session);
  const removed = ContentCache.existing(dir)?.clean() ?? 0;
  if (session.globals.json) session.printJson({ dir, removed });
  else
    session.reporter.info(`removed ${removed} cached file${removed === 1 ? "" : "s"} from ${dir}`);
}

/** Builds the `cache` noun with its `dir` and `clean` verbs. */
export function cacheCommand(open: OpenSession): Command {
  return new Command("cache")
    .description("find or empty the download cache that `svc-dl install` fills")
    .addHelpText("after", examples("svc-dl cache dir", "svc-dl cache clean"))
    .addCommand(
      new Command("dir")
        .description("print the cache's path (SVC_DL_CACHE_DIR, else the OS cache directory)")
        .addHelpText("after", examples("svc-dl cache dir", 'du -sh "$(svc-dl cache dir)"'))
        .action(async (_opts: unknown, cmd: Command) => {
          await runCacheDir(open(cmd));
        }),
    )
    .addCommand(
      new Command("clean")
        .description("remove every cached file (only what svc-dl wrote there)")
        .addHelpText("after", examples("svc-dl cache clean"))
        .action(async (_opts: unknown, cmd: Command) => {
          await runCacheClean(open(cmd));
        }),
    );
}
