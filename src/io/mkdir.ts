import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Most directory levels {@link makeDirectory} creates or looks at (no path is deeper in practice). */
const MAX_LEVELS = 256;

/**
 * `mkdir -p` with a bounded number of system calls (cli-contract "Downloads"; no spin on a
 * failing syscall). Node's recursive mkdir can loop forever on some file systems (`/proc`
 * answers ENOENT to every create) and reports EROFS/EACCES of a parent as ENOENT; this walks up
 * to the first existing ancestor (at most {@link MAX_LEVELS} `stat` calls), then creates each
 * missing level once, without `recursive`, so the first failure is the real one. Existing
 * ancestors may be symlinks (a user's `-o ~/assets` may be one). Throws that error (an
 * ErrnoException: ENOENT, EROFS, EACCES, ENOTDIR for a file in the way, ELOOP).
 */
export function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let current = resolve(dir);
  for (let level = 0; level < MAX_LEVELS; level++) {
    const st = statOrUndefined(current);
    if (st) {
      if (!st.isDirectory()) throw notADirectory(current);
      break;
    }
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (err) {
      // Created meanwhile by someone else: fine when it is a directory now.
      if (
        (err as NodeJS.ErrnoException).code !== "EEXIST" ||
        !statOrUndefined(path)?.isDirectory()
      ) {
        throw err;
      }
    }
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw err;
  }
}

function notADirectory(path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOTDIR: not a directory, mkdir '${path}'`);
  err.code = "ENOTDIR";
  err.path = path;
  return err;
}
