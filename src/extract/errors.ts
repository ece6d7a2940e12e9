import type { ArchiveProblemKind } from "../errors/archive-hints.js";
import type { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { SvcError } from "../errors/svc-error.js";

/** Why an archive is refused: the kind (picks the hint) and the facts, for the message. */
export interface ArchiveProblem {
  kind: ArchiveProblemKind;
  reason: string;
}

/**
 * An archive `--extract` refuses to unpack (cli-contract "Downloads", `--extract`, and
 * "Untrusted text, paths and caches"): an entry with an absolute path, `..`, a drive letter, a
 * backslash, a symlink, a name not valid on Windows, too deep or too long; an encrypted entry; a
 * declared size over 100 × the archive or over the free space; bytes that do not match the
 * declared sizes; an archive that cannot be read. Exit 7, code `unsafe_archive`, with the hint
 * of the problem's kind. Nothing was written into the target folder; the ZIP itself is kept at
 * `archive`.
 */
export function unsafeArchive(archive: string, problem: ArchiveProblem, cause?: unknown): SvcError {
  return new SvcError(`unsafe archive ${archive}: ${problem.reason}; nothing was extracted`, {
    code: "unsafe_archive",
    detail: { problem: problem.kind },
    cause,
  });
}

/**
 * A local failure while extracting (cli-contract exit 8): `no_space` for ENOSPC/EDQUOT,
 * `permission_denied` for EACCES/EPERM/EROFS, else `write_failed`. `what` says what was being
 * done, e.g. `cannot write /dir/.svc-dl/extract-x.new/a.txt`.
 */
export function extractFsError(what: string, err: unknown): FileSystemError {
  return fsError(what, err, { during: "extract" });
}
