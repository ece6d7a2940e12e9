import { randomUUID } from "node:crypto";
import { lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ContentCache } from "../cache/cache.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { durableRename } from "../io/durable.js";
import { hashRegularFile } from "../io/file-hash.js";
import type { OutputDir } from "../outdir/output-dir.js";
import { type StateItem, sameItem } from "../outdir/state.js";
import type { ItemKey, LockItem } from "./types.js";

/**
 * Putting locked files into `dir` without the network (cli-contract "Manifest, lock and
 * cache"): finding them already there, copying them from the cache, moving a verified staged
 * download into place; each recorded through the directory's OutputDir (its one ordering rule),
 * as the download engine records its own files. The caller opened (and locked) the directory.
 */

/** How a file got into place: newly, or replacing a changed file of the same item. */
export type PlaceOutcome = "downloaded" | "repaired";

/**
 * Whether `dir` already holds the locked bytes of `item` at `lock.file`: a regular file (not a
 * symlink) of the locked size whose SHA-256 (re-hashed now) is the locked one, and not recorded
 * as another item's file. Returns `up-to-date` (it was recorded as ours), `adopted` (it was not
 * recorded: it is recorded now, left untouched), or undefined.
 */
export async function takeLocal(
  out: OutputDir,
  item: ItemKey,
  lock: LockItem,
): Promise<"up-to-date" | "adopted" | undefined> {
  const path = out.pathOf(lock.file);
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size !== lock.size) return undefined;
  } catch {
    return undefined;
  }
  const recorded = out.recordedAt(lock.file);
  if (recorded && !sameItem(recorded, item)) return undefined;
  let sha: string | undefined;
  try {
    sha = (await hashRegularFile(path))?.sha256;
  } catch {
    return undefined;
  }
  if (sha !== lock.sha256) return undefined;
  const current =
    recorded?.sha256 === lock.sha256 && recorded.size === lock.size && recorded.etag === lock.etag;
  if (!current) await out.record(recordOf(item, lock));
  return recorded ? "up-to-date" : "adopted";
}

/**
 * Checks that the locked file name may receive `item`'s bytes: not a directory, not another
 * item's recorded file, not an unrecorded file (which {@link takeLocal} found to differ).
 * Returns whether an existing file of ours is replaced. Throws FileSystemError `file_exists`.
 */
export function checkPlaceable(
  out: OutputDir,
  item: ItemKey,
  lock: LockItem,
): { replacing: boolean } {
  const path = out.pathOf(lock.file);
  let exists = false;
  try {
    const st = lstatSync(path);
    if (st.isDirectory()) throw conflict(path, "is a directory");
    exists = true;
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
  }
  const recorded = out.recordedAt(lock.file);
  if (recorded && !sameItem(recorded, item)) {
    throw conflict(path, `belongs to ${recorded.kind} ${recorded.slug}`);
  }
  if (exists && !recorded) throw conflict(path, "exists with other bytes than svc-dl.lock names");
  return { replacing: exists };
}

/**
 * Copies the locked file of `item` from `cache` into `dir` (a temp file in `<dir>/.svc-dl/`,
 * re-hashed, then renamed into place and recorded). Returns undefined on a cache miss (or a
 * damaged entry, which is removed: `onDamaged` hears it). Throws `file_exists` (see {@link checkPlaceable}) and
 * FileSystemError (exit 8) when `dir` cannot be written.
 */
export async function placeFromCache(
  cache: ContentCache,
  out: OutputDir,
  item: ItemKey,
  lock: LockItem,
  onDamaged?: (line: string) => void,
): Promise<PlaceOutcome | undefined> {
  if (!cache.has(lock.sha256)) return undefined;
  const { replacing } = checkPlaceable(out, item, lock);
  const tmp = join(out.stateDir, `install-${randomUUID()}.tmp`);
  if (!cache.copyOut(lock.sha256, lock.size, tmp, onDamaged)) return undefined;
  return moveIntoPlace(out, item, lock, tmp, replacing);
}

/**
 * Moves a verified file (`src`, on the same file system as `dir`) into place as `lock.file` and
 * records it. Throws `file_exists` and FileSystemError (exit 8).
 */
export async function placeVerified(
  out: OutputDir,
  item: ItemKey,
  lock: LockItem,
  src: string,
): Promise<PlaceOutcome> {
  const { replacing } = checkPlaceable(out, item, lock);
  return moveIntoPlace(out, item, lock, src, replacing);
}

async function moveIntoPlace(
  out: OutputDir,
  item: ItemKey,
  lock: LockItem,
  src: string,
  replacing: boolean,
): Promise<PlaceOutcome> {
  const dest = out.pathOf(lock.file);
  await out.record(recordOf(item, lock), () => {
    try {
      durableRename(src, dest, { dirs: out.dirSyncs });
    } catch (err) {
      rmSync(src, { force: true });
      throw fsError(`cannot move the file to ${dest}`, err);
    }
  });
  return replacing ? "repaired" : "downloaded";
}

/** The state record of `item` placed at `lock.file` with the locked bytes. */
function recordOf(item: ItemKey, lock: LockItem): StateItem {
  return {
    kind: item.kind,
    slug: item.slug,
    edition: item.edition,
    file: lock.file,
    size: lock.size,
    etag: lock.etag,
    sha256: lock.sha256,
    completed_at: new Date().toISOString(),
  };
}

function conflict(path: string, what: string): FileSystemError {
  return new FileSystemError(`${path} ${what}`, {
    code: "file_exists",
    detail: { path, manifestDir: true },
  });
}
