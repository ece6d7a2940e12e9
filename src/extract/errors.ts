import { ExitCode } from "../errors/exit-codes.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { SvcError } from "../errors/svc-error.js";

/**
 * An archive `--extract` refuses to unpack (cli-contract "Downloads", `--extract`): an entry
 * with an absolute path, `..`, a drive letter, a backslash, a symlink or a name not valid on
 * Windows; a declared size over 100 × the archive or over the free space; bytes that do not
 * match the declared sizes; an archive that cannot be read. Exit 7, code `unsafe_archive`.
 * Nothing was written into the target folder; the ZIP itself is kept at `archive`.
 */
export function unsafeArchive(archive: string, reason: string, cause?: unknown): SvcError {
  return new SvcError(`unsafe archive ${archive}: ${reason}; nothing was extracted`, {
    code: "unsafe_archive",
    exitCode: ExitCode.network,
    hint: "The ZIP is kept as downloaded; run the command without --extract to keep only the ZIP, and report the pack to the service.",
    cause,
  });
}

/**
 * A local failure while extracting (cli-contract exit 8): `no_space` for ENOSPC/EDQUOT,
 * `permission_denied` for EACCES/EPERM/EROFS, else `write_failed`. `what` says what was being
 * done, e.g. `cannot write /dir/.svc-dl/extract-x.new/a.txt`.
 */
export function extractFsError(what: string, err: unknown): FileSystemError {
  const errno = (err as NodeJS.ErrnoException).code;
  const code =
    errno === "ENOSPC" || errno === "EDQUOT"
      ? "no_space"
      : errno === "EACCES" || errno === "EPERM" || errno === "EROFS"
        ? "permission_denied"
        : "write_failed";
  return new FileSystemError(`${what}: ${(err as Error).message}`, {
    code,
    hint: "Nothing was extracted; fix the cause and run the same command again (the ZIP is kept).",
    cause: err,
  });
}
