import { resolve } from "node:path";
import { UsageError } from "../../errors/usage-error.js";
import { readLock } from "../../install/lockfile.js";

/** A lock given to `cache ls --lock` or `cache prune --keep-lock`, and the SHA-256s it names. */
export interface GivenLock {
  /** The path as the user gave it (what output shows). */
  readonly path: string;
  /** The SHA-256 of every item it pins. */
  readonly sha256s: ReadonlySet<string>;
}

/**
 * Reads the locks at `paths` (relative to `cwd`), validated as `install` reads them
 * (src/install/lockfile.ts). Throws UsageError (exit 2) before anything is listed or deleted:
 * `invalid_lock` naming the JSON path of a malformed lock, `usage_error` for a path with no lock
 * (a typo must never make `cache prune` remove what the lock names).
 */
export function readGivenLocks(paths: readonly string[], cwd: string, flag: string): GivenLock[] {
  return paths.map((path) => {
    const lock = readLock(resolve(cwd, path));
    if (lock === undefined) {
      throw new UsageError(`${flag} ${path}: no such lock file`, {
        hint: `Name the svc-dl.lock that \`svc-dl install\` wrote beside your manifest, e.g. ${flag} svc-dl.lock.`,
      });
    }
    return { path, sha256s: new Set(lock.items.map((i) => i.sha256)) };
  });
}
