import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * `mkdir -p` that reports the real cause. Node's recursive mkdir fails with ENOENT when a parent
 * is read-only or not writable (EROFS, EACCES), which reads as "no such directory"; then the
 * first missing level is created without `recursive` to surface its own error. Throws that
 * error (an ErrnoException), or the original one.
 */
export function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    let missing = dir;
    while (dirname(missing) !== missing && !existsSync(dirname(missing))) {
      missing = dirname(missing);
    }
    mkdirSync(missing); // throws the real error (EROFS, EACCES, ...)
    mkdirSync(dir, { recursive: true }); // it worked after all (a race): the rest
  }
}
