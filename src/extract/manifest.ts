import { lstatSync } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { removeTree } from "../io/remove-tree.js";
import { readRegularFile, writePrivateFileAtomic } from "../io/safe-fs.js";
import * as z from "../io/schema.js";
import { safeBaseName } from "../outdir/names.js";
import { STATE_DIR, stateDirOf } from "../outdir/state.js";
import { checkEntryName } from "./entry-names.js";

/** File in `<dir>/.svc-dl/` that lists what `--extract` put into each folder. */
export const EXTRACTED_FILE = "extracted.json";

/**
 * What one extraction put into `<dir>/<folder>/`: the archive's base name and SHA-256 (lower-case
 * hex), the files (relative POSIX paths, regular files only) and the folders it created, and
 * when (ISO time). A later version replaces exactly these files; anything else in the folder
 * belongs to the user and is kept.
 */
export interface ExtractedFolder {
  archive: string;
  sha256: string;
  files: string[];
  dirs: string[];
  extracted_at: string;
}

/** `{ version: 1, folders: { <folder name>: ExtractedFolder } }`. */
export interface ExtractedManifest {
  version: 1;
  folders: Record<string, ExtractedFolder>;
}

const folderSchema = z.object({
  archive: z.string(),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  files: z.array(z.string()),
  dirs: z.array(z.string()),
  extracted_at: z.string(),
});

/** A base name that may name a folder in the output directory (not the bookkeeping one). */
export function isSafeFolderName(name: string): boolean {
  return name !== STATE_DIR && safeBaseName(name) === name;
}

/** A relative path read back from the manifest that stays inside its folder. */
function isInsidePath(path: string): boolean {
  const checked = checkEntryName(path);
  return !("kind" in checked) && !checked.directory;
}

/**
 * Reads `<dir>/.svc-dl/extracted.json`. The file is untrusted input: a missing, unreadable or
 * malformed file, or a symlink in its place (never followed), is an empty manifest, and a folder record is dropped unless its folder and
 * archive names are safe base names and every path in it passes the entry-name rule (relative,
 * no `..`, no drive letter, no backslash, valid on Windows), so nothing read here can name a
 * path outside its folder.
 */
export function readExtractedManifest(dir: string): ExtractedManifest {
  const manifest: ExtractedManifest = { version: 1, folders: {} };
  let parsed: unknown;
  try {
    // no symlink planted in its place is read through, no FIFO there is waited on
    const text = readRegularFile(join(stateDirOf(dir), EXTRACTED_FILE));
    if (text === undefined) return manifest;
    parsed = JSON.parse(text);
  } catch {
    return manifest;
  }
  const folders = (parsed as { folders?: unknown } | null)?.folders;
  if (!folders || typeof folders !== "object" || Array.isArray(folders)) return manifest;
  for (const [name, value] of Object.entries(folders as Record<string, unknown>)) {
    const record = folderSchema.safeParse(value);
    if (!record.success || !isSafeFolderName(name)) continue;
    const r = record.data;
    if (safeBaseName(r.archive) !== r.archive) continue;
    if (![...r.files, ...r.dirs].every(isInsidePath)) continue;
    manifest.folders[name] = r;
  }
  return manifest;
}

/**
 * Writes the manifest atomically (mode 0600), folders sorted; a symlink in its place is
 * replaced and a folder removed first, never written through. Call only while
 * holding the directory lock. Throws FileSystemError `write_failed` (exit 8).
 */
export async function writeExtractedManifest(
  dir: string,
  manifest: ExtractedManifest,
): Promise<void> {
  const path = join(stateDirOf(dir), EXTRACTED_FILE);
  const folders: Record<string, ExtractedFolder> = {};
  for (const name of Object.keys(manifest.folders).sort()) {
    const record = manifest.folders[name];
    if (record) folders[name] = record;
  }
  try {
    // a rename cannot replace a folder
    if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) removeTree(path);
    writePrivateFileAtomic(path, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`);
  } catch (err) {
    throw new FileSystemError(`cannot write ${path}: ${(err as Error).message}`, {
      code: "write_failed",
      cause: err,
    });
  }
}
