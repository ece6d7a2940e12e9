import type { Entry, ZipFile } from "yauzl";
import type { ArchiveProblemKind } from "../errors/archive-hints.js";
import { counted } from "../io/plural.js";
import { checkEntryName, collisionKey, entryType, shownName } from "./entry-names.js";
import { unsafeArchive } from "./errors.js";

/** Most entries an archive may have (a flood of tiny entries is a bomb of its own). */
export const MAX_ENTRIES = 100_000;
/** The declared uncompressed total may be at most this many times the archive's size. */
export const MAX_EXPANSION_RATIO = 100;

/** One checked entry: its segments, and for a file the yauzl entry to read it through. */
export interface CheckedEntry {
  segments: string[];
  directory: boolean;
  /** The yauzl entry (files only). */
  entry: Entry | undefined;
}

/** The checked contents of an archive: the entries and their declared uncompressed total. */
export interface ArchivePlan {
  zip: ZipFile;
  entries: CheckedEntry[];
  /** Sum of the declared uncompressed sizes, in bytes. */
  declaredBytes: number;
}

/**
 * Opens `archive` with yauzl (names left undecoded so that every name is judged here, with
 * backslashes kept; sizes checked here and while writing, not by yauzl, whose check runs before
 * an entry is seen and reports an encrypted entry as a size mismatch) and checks every entry of the
 * central directory before anything is written (cli-contract "Downloads", `--extract`): names
 * ({@link checkEntryName}), symlinks and special files (unix mode or NTFS reparse point),
 * encrypted entries, compression methods other than stored and deflate, a stored entry whose two
 * sizes differ, two entries landing on
 * the same path (case-insensitively), a file where another entry needs a folder, more than
 * {@link MAX_ENTRIES} entries, and a declared total over {@link MAX_EXPANSION_RATIO} × the
 * archive's size. Returns the open ZipFile (the caller closes it) and the entries.
 * Throws SvcError `unsafe_archive` (exit 7).
 */
export async function inspectArchive(archive: string, archiveBytes: number): Promise<ArchivePlan> {
  // `.default`: module.exports of this CommonJS package, also in the CLI bundle (scripts/build.js)
  const { default: yauzl } = await import("yauzl");
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(archive, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      // yauzl's own size check runs before an entry is seen and calls an encrypted entry a
      // "size mismatch": sizes are checked here (stored) and while writing (write-entries.ts)
      validateEntrySizes: false,
    });
  } catch (err) {
    throw unreadable(archive, err);
  }
  try {
    if (zip.entryCount > MAX_ENTRIES) {
      throw refuse(
        archive,
        "too large",
        `it has ${counted(zip.entryCount, "entry", "entries")} (at most ${MAX_ENTRIES})`,
      );
    }
    const entries: CheckedEntry[] = [];
    const seen = new Map<string, boolean>();
    let declaredBytes = 0;
    let iterated: AsyncIterable<Entry>;
    try {
      iterated = zip.eachEntry();
    } catch (err) {
      throw unreadable(archive, err);
    }
    try {
      for await (const entry of iterated) {
        const checked = checkEntry(archive, entry, yauzl.getFileNameLowLevel);
        for (let i = 1; i < checked.segments.length; i++) {
          claim(archive, seen, checked.segments.slice(0, i), true);
        }
        claim(archive, seen, checked.segments, checked.directory);
        declaredBytes += checked.directory ? 0 : entry.uncompressedSize;
        entries.push(checked);
      }
    } catch (err) {
      if (err instanceof Error && "code" in err && err.code === "unsafe_archive") throw err;
      throw unreadable(archive, err);
    }
    if (declaredBytes > MAX_EXPANSION_RATIO * archiveBytes) {
      throw refuse(
        archive,
        "too large",
        `its entries declare ${declaredBytes} bytes, more than ${MAX_EXPANSION_RATIO} times its own ${archiveBytes} bytes`,
      );
    }
    return { zip, entries, declaredBytes };
  } catch (err) {
    zip.close();
    throw err;
  }
}

function checkEntry(
  archive: string,
  entry: Entry,
  decodeName: typeof import("yauzl").getFileNameLowLevel,
): CheckedEntry {
  // decodeStrings: false leaves the raw name; decode it strictly (backslashes kept).
  const name = decodeName(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
  const path = checkEntryName(name);
  if ("kind" in path) throw unsafeArchive(archive, path);
  const shown = shownName(name);
  const type = entryType(entry.externalFileAttributes);
  if (type === "symlink") throw refuse(archive, "link", `entry ${shown} is a symbolic link`);
  if (type === "special") throw refuse(archive, "link", `entry ${shown} is not a regular file`);
  const directory = path.directory || type === "directory";
  if (directory) return { segments: path.segments, directory: true, entry: undefined };
  if (entry.isEncrypted()) throw refuse(archive, "encrypted", `entry ${shown} is encrypted`);
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw refuse(
      archive,
      "compression",
      `entry ${shown} uses compression method ${entry.compressionMethod} (only stored and deflate are read)`,
    );
  }
  if (entry.compressionMethod === 0 && entry.compressedSize !== entry.uncompressedSize) {
    throw refuse(
      archive,
      "corrupt",
      `stored entry ${shown} declares ${entry.uncompressedSize} bytes but holds ${entry.compressedSize}`,
    );
  }
  return { segments: path.segments, directory: false, entry };
}

/** Records a path; refuses a second entry on the same path, and a file where a folder is needed. */
function claim(
  archive: string,
  seen: Map<string, boolean>,
  segments: readonly string[],
  directory: boolean,
): void {
  const key = collisionKey(segments);
  const before = seen.get(key);
  if (before === undefined) {
    seen.set(key, directory);
    return;
  }
  if (before && directory) return;
  throw refuse(
    archive,
    "collision",
    `entry ${shownName(segments.join("/"))} collides with another entry of the same name`,
  );
}

function refuse(archive: string, kind: ArchiveProblemKind, reason: string): Error {
  return unsafeArchive(archive, { kind, reason });
}

function unreadable(archive: string, err: unknown): Error {
  const reason = `it cannot be read as a ZIP (${(err as Error).message})`;
  return unsafeArchive(archive, { kind: "corrupt", reason }, err);
}
