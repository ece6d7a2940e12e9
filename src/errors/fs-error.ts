import { FileSystemError } from "./file-system-error.js";

/** Maps a file-system error to FileSystemError with a code the user can act on. */
export function fsError(what: string, err: unknown): FileSystemError {
  const code = (err as NodeJS.ErrnoException).code;
  const local =
    code === "ENOSPC" || code === "EDQUOT"
      ? "no_space"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? "permission_denied"
        : "write_failed";
  const hint =
    local === "no_space"
      ? "Free some disk space and run the same command again; the partial data is kept."
      : local === "permission_denied"
        ? "Check the permissions of the output directory, or choose another with -o."
        : undefined;
  return new FileSystemError(`${what}: ${(err as Error).message}`, {
    code: local,
    ...(hint ? { hint } : {}),
    cause: err,
  });
}
