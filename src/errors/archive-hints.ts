/**
 * The `unsafe_archive` row's hints (part of the error table, in
 * src/errors/code-table/network-rows.ts), one per kind of problem that makes `--extract` refuse
 * an archive (cli-contract "Downloads", `--extract`; "Untrusted text, paths and caches"), so the
 * hint names the actual cause. The extractor passes the kind as the error's `detail.problem`
 * (src/extract/errors.ts).
 */

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

/** The hint for an archive refused for `problem` (a kind above), or undefined for another value. */
export function archiveHint(problem: unknown): string | undefined {
  return typeof problem === "string" && Object.hasOwn(HINTS, problem)
    ? HINTS[problem as ArchiveProblemKind]
    : undefined;
}
