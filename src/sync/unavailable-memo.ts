import { join } from "node:path";
import { fsError } from "../errors/fs-error.js";
import { readRegularFile, writePrivateFileAtomic } from "../io/safe-fs.js";
import * as z from "../io/schema.js";
import { checkStateDir, ensureStateDir, stateDirOf } from "../outdir/state.js";
import type { SyncItemResult } from "./types.js";

/** File in `<dir>/.svc-dl/` where `packs sync` remembers packs that have no authoring edition. */
export const UNAVAILABLE_FILE = "sync-unavailable.json";

/**
 * `{ version: 1, authoring: { <slug>: <ISO time the service answered file_unavailable> } }`.
 * Lets a nightly `--edition all` run skip, without a request, the authoring editions the service
 * already said do not exist (each such request spends the download budget). `--refresh` asks again.
 */
interface MemoFile {
  version: 1;
  authoring: Record<string, string>;
}

/** The memo as read back: version 1, slugs to strings (other entries are dropped one by one). */
const MemoFileSchema = z.object({
  version: z.literal(1),
  authoring: z.record(z.string(), z.unknown()),
});

/**
 * Slugs remembered as having no authoring edition in `dir` → when that was learnt (ISO time).
 * A missing, unreadable or malformed file (another version, an array, entries that are not
 * strings) is an empty memo, or loses those entries: it is only an optimisation. Throws
 * FileSystemError `unsafe_state_dir` (exit 8) when `.svc-dl` may not be trusted (a symlink,
 * another user's, writable by others), as every reader of `.svc-dl` does.
 */
export function readUnavailableMemo(dir: string): Map<string, string> {
  const memo = new Map<string, string>();
  if (!checkStateDir(dir)) return memo;
  let parsed: unknown;
  try {
    // Untrusted like every file in .svc-dl/: never read through a symlink or from a FIFO.
    const text = readRegularFile(join(stateDirOf(dir), UNAVAILABLE_FILE), 1 << 20);
    if (text === undefined) return memo;
    parsed = JSON.parse(text);
  } catch {
    return memo;
  }
  const file = MemoFileSchema.safeParse(parsed);
  if (!file.success) return memo;
  for (const [slug, at] of Object.entries(file.data.authoring)) {
    if (typeof at === "string") memo.set(slug, at);
  }
  return memo;
}

/**
 * Writes the memo atomically (a new 0600 file renamed into place; a symlink there is replaced,
 * never followed), sorted by slug; removes nothing else. Call only while holding the directory
 * lock. Throws FileSystemError `write_failed`/`no_space`/`permission_denied` (exit 8).
 */
export async function writeUnavailableMemo(
  dir: string,
  memo: ReadonlyMap<string, string>,
): Promise<void> {
  ensureStateDir(dir);
  const path = join(stateDirOf(dir), UNAVAILABLE_FILE);
  const authoring: Record<string, string> = {};
  for (const slug of [...memo.keys()].sort()) authoring[slug] = memo.get(slug) ?? "";
  const doc: MemoFile = { version: 1, authoring };
  try {
    writePrivateFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (err) {
    throw fsError(`cannot write ${path}`, err);
  }
}

/**
 * Updates `<dir>/.svc-dl/sync-unavailable.json` from this run's authoring items: adds packs the
 * service answered `file_unavailable` for, drops packs whose authoring edition now downloaded
 * or was re-checked. Written only when something changed.
 */
export async function rememberUnavailable(
  dir: string,
  memo: ReadonlyMap<string, string>,
  items: readonly SyncItemResult[],
): Promise<void> {
  const next = new Map(memo);
  const now = new Date().toISOString();
  for (const item of items) {
    if (item.edition !== "authoring") continue;
    if (item.status === "unavailable") {
      if (!next.has(item.slug)) next.set(item.slug, now);
    } else if (item.status !== "failed") {
      next.delete(item.slug);
    }
  }
  const same = next.size === memo.size && [...next.keys()].every((slug) => memo.has(slug));
  if (!same) await writeUnavailableMemo(dir, next);
}
