import type { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { SvcError } from "../errors/svc-error.js";

/**
 * What kind of problem makes `--extract` refuse an archive; each kind has its own hint, so the
 * hint names the actual cause.
 */
export type ArchiveProblemKind =
  | "outside"
  | "not valid on Windows"
  | "too deep"
  | "name too long"
  | "path too long"
  | "link"
  | "encrypted"
  | "compression"
  | "collision"
  | "too large"
  | "no space"
  | "corrupt";

/** Why an archive is refused: the kind (picks the hint) and the facts, for the message. */
export interface ArchiveProblem {
  kind: ArchiveProblemKind;
  reason: string;
}

const KEPT =
  "Nothing was extracted; the ZIP is kept as downloaded (run the command without --extract to keep only the ZIP)";
const REPORT = "report the pack to the service";
const LIMITS =
  "svc-dl extracts names at most 64 levels deep, 255 bytes per name and 1,024 bytes per path";

const HINTS: Record<ArchiveProblemKind, string> = {
  outside: `An entry names a path that could lead outside its folder (absolute, "..", drive letter or backslash); ${REPORT}. ${KEPT}.`,
  "not valid on Windows": `An entry has a name Windows cannot store, so the folder would not be portable; ${REPORT}. ${KEPT}.`,
  "too deep": `${LIMITS}; this archive nests deeper: ${REPORT}. ${KEPT}.`,
  "name too long": `${LIMITS}; this archive has a longer name: ${REPORT}. ${KEPT}.`,
  "path too long": `${LIMITS}; this archive has a longer path: ${REPORT}. ${KEPT}.`,
  link: `svc-dl never extracts symbolic links or special files; unpack the ZIP yourself if you trust it. ${KEPT}.`,
  encrypted: `The archive is password-protected and svc-dl does not decrypt; unpack it with a ZIP tool that asks for the password. ${KEPT}.`,
  compression: `svc-dl reads only stored and deflated entries; unpack the ZIP with a tool that knows this method. ${KEPT}.`,
  collision: `Two entries land on the same path on case-insensitive file systems (Windows, macOS); ${REPORT}. ${KEPT}.`,
  "too large": `The archive declares far more data than its own size (a ZIP bomb?); ${REPORT}. ${KEPT}.`,
  "no space": `Free disk space where the ZIP is (the folder is extracted beside it), then run the same command again. ${KEPT}.`,
  corrupt: `The archive does not match its own records; ${REPORT}. ${KEPT}.`,
};

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
    hint: HINTS[problem.kind],
    cause,
  });
}

/**
 * A local failure while extracting (cli-contract exit 8): `no_space` for ENOSPC/EDQUOT,
 * `permission_denied` for EACCES/EPERM/EROFS, else `write_failed`. `what` says what was being
 * done, e.g. `cannot write /dir/.svc-dl/extract-x.new/a.txt`.
 */
export function extractFsError(what: string, err: unknown): FileSystemError {
  return fsError(
    what,
    err,
    "Nothing was extracted; fix the cause and run the same command again (the ZIP is kept).",
  );
}
