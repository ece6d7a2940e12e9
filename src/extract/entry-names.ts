/**
 * Checks of ZIP entry names before anything is extracted (cli-contract "Downloads",
 * `--extract`). Pure functions: no file system.
 */

/** Characters Windows refuses in a name, and control characters. */
const WINDOWS_INVALID = /[<>:"|?*\p{Cc}]/u;
/** `CON`, `PRN`, `AUX`, `NUL`, `COM0-9`, `LPT0-9` (and ¹²³), `CONIN$`, `CONOUT$`, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/** An entry name split into its path segments, and whether it names a directory (trailing `/`). */
export interface EntryPath {
  /** The segments, none empty, `.` or `..`. */
  segments: string[];
  directory: boolean;
}

/**
 * Checks one entry name (already decoded, with backslashes kept as they are) and splits it into
 * segments. Returns the problem as text when the name is refused: empty, absolute (`/x`), a
 * drive letter (`C:`), a backslash, an empty, `.` or `..` segment, a character Windows refuses
 * (`<>:"|?*`, control characters), a segment ending in a dot or a space, or a Windows device
 * name (`CON`, `nul.txt`, `COM1`, `LPT9.tar.gz`, …).
 */
export function checkEntryName(name: string): EntryPath | string {
  if (name === "") return "an entry has an empty name";
  const shown = JSON.stringify(name.slice(0, 120));
  if (name.startsWith("/")) return `entry ${shown} has an absolute path`;
  if (/^[A-Za-z]:/.test(name)) return `entry ${shown} starts with a drive letter`;
  if (name.includes("\\")) return `entry ${shown} uses a backslash as separator`;
  const directory = name.endsWith("/");
  const segments = (directory ? name.slice(0, -1) : name).split("/");
  for (const segment of segments) {
    if (segment === "..") return `entry ${shown} climbs out of its folder (..)`;
    if (segment === "" || segment === ".") return `entry ${shown} has an empty or "." segment`;
    if (WINDOWS_INVALID.test(segment)) {
      return `entry ${shown} has a character not valid on Windows (<>:"|?* or a control character)`;
    }
    if (/[. ]$/.test(segment)) return `entry ${shown} has a name ending in a dot or a space`;
    if (WINDOWS_DEVICE.test(segment)) return `entry ${shown} uses a name reserved on Windows`;
  }
  return { segments, directory };
}

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
