import type { HintDetail } from "./codes.js";
import { FileSystemError } from "./file-system-error.js";

/**
 * Maps a file-system error to FileSystemError with a code the user can act on (`no_space`,
 * `permission_denied`, else `write_failed`). `detail`: the facts the table's hint is rendered
 * from (`during: "extract"`: nothing was extracted and the ZIP is kept; `during: "cache"`: the
 * cache folder), which names only the flags of the command at hand (`-o` where there is one).
 */
export function fsError(what: string, err: unknown, detail?: HintDetail): FileSystemError {
  const code = (err as NodeJS.ErrnoException).code;
  const local =
    code === "ENOSPC" || code === "EDQUOT"
      ? "no_space"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? "permission_denied"
        : "write_failed";
  return new FileSystemError(`${what}: ${(err as Error).message}`, {
    code: local,
    ...(detail !== undefined ? { detail } : {}),
    cause: err,
  });
}
