/**
 * Checks of ZIP entry names before anything is extracted (cli-contract "Downloads",
 * `--extract`). Pure functions: no file system.
 */

import { containmentProblem } from "../io/containment.js";
import type { ArchiveProblem } from "./errors.js";

/** Characters Windows refuses in a name, and control characters. */
const WINDOWS_INVALID = /[<>:"|?*\p{Cc}]/u;
/** `CON`, `PRN`, `AUX`, `NUL`, `COM0-9`, `LPT0-9` (and ¹²³), `CONIN$`, `CONOUT$`, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/** Most folder levels an entry name may have (cli-contract "Untrusted text, paths and caches"). */
export const MAX_ENTRY_DEPTH = 64;
/** Longest segment of an entry name, in UTF-8 bytes (the common file-system limit). */
export const MAX_SEGMENT_BYTES = 255;
/** Longest entry name, in UTF-8 bytes. */
export const MAX_ENTRY_BYTES = 1024;

/** An entry name split into its path segments, and whether it names a directory (trailing `/`). */
export interface EntryPath {
  /** The segments, none empty, `.` or `..`. */
  segments: string[];
  directory: boolean;
}

/** An entry name as shown in a message: JSON-quoted, cut after 120 characters. */
export function shownName(name: string): string {
  return name.length > 120 ? `${JSON.stringify(name.slice(0, 120))}…` : JSON.stringify(name);
}

/**
 * Checks one entry name (already decoded, with backslashes kept as they are) and splits it into
 * segments. Returns the problem when the name is refused: empty, absolute (`/x`), a drive letter
 * (`C:`) or a `..` that climbs out (the containment rule, src/io/containment.ts); then any `..`,
 * a backslash, deeper than {@link MAX_ENTRY_DEPTH} levels, a segment over
 * {@link MAX_SEGMENT_BYTES} bytes or a name over {@link MAX_ENTRY_BYTES} bytes; an empty or `.`
 * segment, a character Windows refuses (`<>:"|?*`, control characters), a segment ending in a
 * dot or a space, or a Windows device name (`CON`, `nul.txt`, `COM1`, `LPT9.tar.gz`, …).
 */
export function checkEntryName(name: string): EntryPath | ArchiveProblem {
  const shown = shownName(name);
  const contained = containmentProblem(name);
  if (contained === "empty") return { kind: "outside", reason: "an entry has an empty name" };
  if (contained === "absolute") return outside(`entry ${shown} has an absolute path`);
  if (contained === "drive letter") return outside(`entry ${shown} starts with a drive letter`);
  if (contained === "climbs out") return outside(`entry ${shown} climbs out of its folder (..)`);
  if (contained === "control character") {
    return windows(`entry ${shown} has a character not valid on Windows (a control character)`);
  }
  if (name.includes("\\")) return outside(`entry ${shown} uses a backslash as separator`);
  const directory = name.endsWith("/");
  const segments = (directory ? name.slice(0, -1) : name).split("/");
  const limit = checkLimits(shown, directory ? name.slice(0, -1) : name, segments);
  if (limit !== undefined) return limit;
  for (const segment of segments) {
    if (segment === "..") return outside(`entry ${shown} has a ".." segment`);
    if (segment === "" || segment === ".")
      return windows(`entry ${shown} has an empty or "." segment`);
    if (WINDOWS_INVALID.test(segment)) {
      return windows(
        `entry ${shown} has a character not valid on Windows (<>:"|?* or a control character)`,
      );
    }
    if (/[. ]$/.test(segment))
      return windows(`entry ${shown} has a name ending in a dot or a space`);
    if (WINDOWS_DEVICE.test(segment))
      return windows(`entry ${shown} uses a name reserved on Windows`);
  }
  return { segments, directory };
}

/** The depth and length limits of an entry name (`path` without its trailing `/`). */
function checkLimits(
  shown: string,
  path: string,
  segments: readonly string[],
): ArchiveProblem | undefined {
  if (segments.length > MAX_ENTRY_DEPTH) {
    return {
      kind: "too deep",
      reason: `entry ${shown} is ${segments.length} levels deep (at most ${MAX_ENTRY_DEPTH})`,
    };
  }
  for (const segment of segments) {
    const bytes = Buffer.byteLength(segment, "utf8");
    if (bytes > MAX_SEGMENT_BYTES) {
      return {
        kind: "name too long",
        reason: `entry ${shown} has a ${bytes}-byte name (at most ${MAX_SEGMENT_BYTES} bytes)`,
      };
    }
  }
  const bytes = Buffer.byteLength(path, "utf8");
  if (bytes > MAX_ENTRY_BYTES) {
    return {
      kind: "path too long",
      reason: `entry ${shown} has a ${bytes}-byte path (at most ${MAX_ENTRY_BYTES} bytes)`,
    };
  }
  return undefined;
}

const outside = (reason: string): ArchiveProblem => ({ kind: "outside", reason });
const windows = (reason: string): ArchiveProblem => ({ kind: "not valid on Windows", reason });

/** The key two names collide under on a case-insensitive, normalising file system (Windows, macOS). */
export function collisionKey(segments: readonly string[]): string {
  return segments.join("/").normalize("NFC").toLowerCase();
}

/** Unix file type bits of an entry's external attributes (high 16 bits). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** MS-DOS attribute bit of an NTFS reparse point (a Windows symlink or junction). */
const DOS_REPARSE_POINT = 0x400;

/**
 * What an entry's external attributes say it is: `file`, `directory`, `symlink` (unix mode
 * `S_IFLNK`, or an NTFS reparse point), or `special` (a device, FIFO or socket). Mode bits of 0
 * (archives made on DOS/Windows) mean a plain file or directory.
 */
export function entryType(
  externalFileAttributes: number,
): "file" | "directory" | "symlink" | "special" | "plain" {
  const mode = (externalFileAttributes >>> 16) & 0xffff;
  const type = mode & S_IFMT;
  if ((externalFileAttributes & DOS_REPARSE_POINT) !== 0) return "symlink";
  if (type === 0) return "plain";
  if (type === S_IFLNK) return "symlink";
  if (type === S_IFREG) return "file";
  if (type === S_IFDIR) return "directory";
  return "special";
}
