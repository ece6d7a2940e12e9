import { mkdirSync, rmdirSync, utimesSync } from "node:fs";
import { removeTree } from "../io/remove-tree.js";
import { lstatIfExists, PRIVATE_DIR_MODE } from "../io/safe-fs.js";

/**
 * How long a lock directory whose mtime is not refreshed still counts as held, in ms (the
 * `stale` time of proper-lockfile, which earlier svc-dl versions use on the same directory, so
 * both judge a lock alike). Past it the holder is taken to be gone (a crash, another host).
 */
export const LOCK_STALE_MS = 10_000;

/** How often a held lock's mtime is refreshed, in ms: half of {@link LOCK_STALE_MS}. */
export const LOCK_REFRESH_MS = LOCK_STALE_MS / 2;

/**
 * Takes the lock directory `lockPath` (cli-contract "Downloads": one run per directory): an
 * atomic `mkdir` (mode 0700), so of two runs exactly one gets it. Returns its release function,
 * or undefined when another holder has it: the directory exists and its mtime is younger than
 * {@link LOCK_STALE_MS}. A stale lock is removed (without following links) and taken, once,
 * unless `liveHolder()` says its holder is a process that still runs on this host (one whose
 * event loop was busy too long to refresh it).
 * While held, the mtime is refreshed every {@link LOCK_REFRESH_MS} by a timer that never keeps
 * the process alive, and the directory is removed at process exit if not released before.
 * `release()` stops both and removes the directory; it is idempotent and never throws. Throws
 * the `mkdir` error for anything but an existing lock (the caller maps it to exit 8).
 */
export function takeLockDir(lockPath: string, liveHolder: () => boolean): (() => void) | undefined {
  if (!makeLockDir(lockPath)) {
    const st = lstatIfExists(lockPath);
    if (st && st.mtimeMs >= Date.now() - LOCK_STALE_MS) return undefined;
    if (liveHolder()) return undefined;
    try {
      removeTree(lockPath);
    } catch {
      return undefined;
    }
    if (!makeLockDir(lockPath)) return undefined;
  }
  const refresh = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lockPath, now, now);
    } catch {
      // the lock holds while its directory exists; a failed refresh changes nothing here
    }
  }, LOCK_REFRESH_MS);
  refresh.unref();
  const release = (): void => {
    if (!held.delete(release)) return;
    clearInterval(refresh);
    try {
      rmdirSync(lockPath);
    } catch {
      // already gone (taken over as stale) or not empty (not ours to empty)
    }
  };
  held.add(release);
  if (held.size === 1 && !exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const r of [...held]) r();
    });
  }
  return release;
}

/** The release functions of the locks this process holds (run at exit if still held). */
const held = new Set<() => void>();
let exitHooked = false;

/** `mkdir` of the lock: true when this call made it, false when it exists; throws otherwise. */
function makeLockDir(lockPath: string): boolean {
  try {
    mkdirSync(lockPath, { mode: PRIVATE_DIR_MODE });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}
