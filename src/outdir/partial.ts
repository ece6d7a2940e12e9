import { createHash } from "node:crypto";
import { chmodSync, closeSync } from "node:fs";
import { join } from "node:path";
import { fsError } from "../errors/fs-error.js";
import {
  createPrivateFile,
  lstatIfExists,
  readRegularFile,
  removeEntry,
  writePrivateFileAtomic,
} from "../io/safe-fs.js";
import { isSafeBaseName } from "./names.js";
import { type ItemRef, stateDirOf } from "./state.js";

/**
 * Bookkeeping of an unfinished download, stored next to its data in `<dir>/.svc-dl/`:
 * the strong ETag the bytes came with (sent back as `If-Range`) and the file's full size in
 * bytes (a 206 must announce the same total). Without both, partial data is never resumed.
 */
export interface PartialMeta extends ItemRef {
  version: 1;
  etag: string;
  /** Full size in bytes; -1 when the response had no Content-Length (chunked) and no range total yet. */
  total: number;
  /** The final file name chosen for it, when known (a safe base name, checked on read). */
  file?: string;
  started_at: string;
}

/** Paths of the partial data file and its metadata for one item in `dir`. */
export interface PartialPaths {
  data: string;
  meta: string;
}

/**
 * Where the partial data of `item` lives: `<dir>/.svc-dl/<kind>-<edition>-<slug>.part` (+
 * `.json`), the slug percent-encoded (hashed when long) so any slug is one safe file name.
 */
export function partialPaths(dir: string, item: ItemRef): PartialPaths {
  let slug = encodeURIComponent(item.slug).replace(/\*/g, "%2A");
  if (slug.length > 120) {
    slug = `${slug.slice(0, 60)}~${createHash("sha256").update(item.slug).digest("hex").slice(0, 16)}`;
  }
  const base = join(stateDirOf(dir), `${item.kind}-${item.edition ?? "file"}-${slug}.part`);
  return { data: base, meta: `${base}.json` };
}

/**
 * The resumable partial data of `item`: its metadata and the bytes on disk. Both files are
 * untrusted (cli-contract "Downloads"): a symlink or other non-regular file at either path, a
 * metadata file for another item, with a `file` that is not a safe base name (`../x`, an
 * absolute path), or with a size that is not a whole number, is dropped (the leftovers are
 * removed, links themselves, never their targets) and undefined returned. Also undefined when
 * there is no data or more bytes than the recorded total.
 */
export function readPartial(
  paths: PartialPaths,
  item: ItemRef,
): { meta: PartialMeta; bytes: number } | undefined {
  const st = lstatIfExists(paths.data);
  if (!st?.isFile()) {
    removePartial(paths);
    return undefined;
  }
  const meta = parseMeta(readMetaText(paths.meta), item);
  if (!meta || (meta.total >= 0 && st.size > meta.total) || st.size === 0) {
    removePartial(paths);
    return undefined;
  }
  return { meta, bytes: st.size };
}

function readMetaText(path: string): string | undefined {
  try {
    return readRegularFile(path, 64 * 1024);
  } catch {
    return undefined;
  }
}

function parseMeta(text: string | undefined, item: ItemRef): PartialMeta | undefined {
  if (text === undefined) return undefined;
  let raw: Partial<PartialMeta>;
  try {
    raw = JSON.parse(text) as Partial<PartialMeta>;
  } catch {
    return undefined;
  }
  if (
    raw?.version !== 1 ||
    typeof raw.etag !== "string" ||
    typeof raw.total !== "number" ||
    !Number.isSafeInteger(raw.total) ||
    raw.kind !== item.kind ||
    raw.slug !== item.slug ||
    (raw.edition ?? null) !== item.edition ||
    (raw.file !== undefined && !isSafeBaseName(raw.file))
  ) {
    return undefined;
  }
  return raw as PartialMeta;
}

/**
 * Writes the metadata of a partial download atomically (new 0600 temp file, rename; a symlink
 * at the path is replaced, never followed), synchronously so that no response data can arrive
 * unobserved meanwhile. Not flushed (`durable: false`): it only makes resuming possible, and
 * the partial data it describes is not flushed either until the download completes. A run
 * killed by a signal still finds it (the page cache survives the process); after a power cut it
 * may be missing or torn, and {@link readPartial} then drops the partial data and the download
 * starts over. Throws FileSystemError (exit 8).
 */
export function writePartialMeta(paths: PartialPaths, meta: PartialMeta): void {
  try {
    writePrivateFileAtomic(paths.meta, `${JSON.stringify(meta)}\n`, { durable: false });
  } catch (err) {
    throw fsError(`cannot write ${paths.meta}`, err);
  }
}

/**
 * Prepares the partial data file before the writer opens it. From offset 0: whatever is at the
 * path (a symlink included) is removed and a new empty 0600 file is created with
 * `O_CREAT|O_EXCL|O_NOFOLLOW`, so the writer never truncates or appends to a link's target.
 * From offset > 0 the file must still be a regular file; if it is not, it is replaced by an
 * empty one (the writer then sees fewer bytes than expected and the engine starts over).
 * Throws FileSystemError (exit 8).
 */
export function preparePartialData(paths: PartialPaths, offset: number): void {
  if (offset > 0 && lstatIfExists(paths.data)?.isFile()) return;
  removeEntry(paths.data);
  try {
    closeSync(createPrivateFile(paths.data));
  } catch (err) {
    throw fsError(`cannot create ${paths.data}`, err);
  }
}

/**
 * Gives the complete partial file the mode a new file in the output directory would have
 * (0666 minus the umask, as curl and wget create files) just before it is renamed into place:
 * it is private (0600) only while it lives in `.svc-dl/`. Never throws (the mode is cosmetic).
 */
export function setFinalFileMode(paths: PartialPaths): void {
  try {
    chmodSync(paths.data, 0o666 & ~process.umask());
  } catch {
    // keeps 0600
  }
}

/** Removes partial data and its metadata (links themselves, never their targets); never throws. */
export function removePartial(paths: PartialPaths): void {
  removeEntry(paths.data);
  removeEntry(paths.meta);
}
