import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stateDirOf } from "../download/state.js";
import { FileSystemError } from "../errors/file-system-error.js";

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
    parsed = JSON.parse(readFileSync(join(stateDirOf(dir), UNAVAILABLE_FILE), "utf8"));
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
 * Writes the memo atomically (write-file-atomic), sorted by slug; removes nothing else. Call only
 * while holding the directory lock. Throws FileSystemError `write_failed` (exit 8).
 */
export async function writeUnavailableMemo(
  dir: string,
  memo: ReadonlyMap<string, string>,
): Promise<void> {
  const { default: writeFileAtomic } = await import("write-file-atomic");
  const path = join(stateDirOf(dir), UNAVAILABLE_FILE);
  const authoring: Record<string, string> = {};
  for (const slug of [...memo.keys()].sort()) authoring[slug] = memo.get(slug) ?? "";
  const doc: MemoFile = { version: 1, authoring };
  try {
    await writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (err) {
    throw new FileSystemError(`cannot write ${path}: ${(err as Error).message}`, {
      code: "write_failed",
      cause: err,
    });
  }
}
