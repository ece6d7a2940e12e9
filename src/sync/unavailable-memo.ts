import { join } from "node:path";
import { ensureStateDir, stateDirOf } from "../download/state.js";
import { fsError } from "../download/writer.js";
import { readRegularFile, writePrivateFileAtomic } from "../io/safe-fs.js";

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

/**
 * Slugs remembered as having no authoring edition in `dir` → when that was learnt (ISO time).
 * A missing, unreadable or malformed file is an empty memo: it is only an optimisation.
 */
export function readUnavailableMemo(dir: string): Map<string, string> {
  const memo = new Map<string, string>();
  let parsed: unknown;
  try {
    // Untrusted like every file in .svc-dl/: never read through a symlink or from a FIFO.
    const text = readRegularFile(join(stateDirOf(dir), UNAVAILABLE_FILE), 1 << 20);
    if (text === undefined) return memo;
    parsed = JSON.parse(text);
  } catch {
    return memo;
  }
  const authoring = (parsed as Partial<MemoFile> | null)?.authoring;
  if (authoring && typeof authoring === "object") {
    for (const [slug, at] of Object.entries(authoring)) {
      if (typeof at === "string") memo.set(slug, at);
    }
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
