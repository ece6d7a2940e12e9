import { lstatSync, mkdirSync, readdirSync, renameSync, statfsSync } from "node:fs";
import { dirname, join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { syncDir, syncTree } from "../io/durable.js";
import { removeTree } from "../io/remove-tree.js";
import { ensureStateDir, stateDirOf } from "../outdir/state.js";
import { carryOver } from "./carry-over.js";
import { extractFsError, unsafeArchive } from "./errors.js";
import { inspectArchive } from "./inspect.js";
import {
  type ExtractedFolder,
  isSafeFolderName,
  readExtractedManifest,
  writeExtractedManifest,
} from "./manifest.js";
import { writeEntries } from "./write-entries.js";

/** Options of {@link extractPack}. */
export interface ExtractPackOptions {
  /** The output directory, absolute, holding the archive and `.svc-dl/`. */
  dir: string;
  /** Base name of the verified pack ZIP in `dir` (the download's `file`). */
  file: string;
  /** Lower-case hex SHA-256 of the archive, as the state file records it. */
  sha256: string;
  /** Stops between entries (the partial folder is removed). */
  signal?: AbortSignal;
}

/** What {@link extractPack} did. */
export interface ExtractResult {
  /** `extracted` now, or `unchanged` (the archive's SHA-256 equals the one extracted before). */
  status: "extracted" | "unchanged";
  /** Absolute path of the folder. */
  path: string;
  /** Number of files the folder holds from the archive. */
  files: number;
}

const NEW_SUFFIX = ".new";
const OLD_SUFFIX = ".old";
const PREFIX = "extract-";

/** The folder an archive is extracted into: its name without `.zip`; never `.svc-dl` or empty. */
export function extractFolderName(file: string): string {
  const stem = file.replace(/\.zip$/i, "");
  return stem !== file && isSafeFolderName(stem) ? stem : `${file}.d`;
}

/**
 * Extracts a verified pack ZIP (cli-contract "Downloads", `--extract`) into
 * `<dir>/<file name without .zip>/`. Call only while holding the directory lock.
 *
 * 1. Finishes an interrupted earlier extraction: a folder moved aside (`.svc-dl/extract-X.old`)
 *    whose place is empty is put back; half-built folders (`extract-X.new`) are removed.
 * 2. Returns `unchanged` when `.svc-dl/extracted.json` records this SHA-256 for the folder and
 *    its files are there.
 * 3. Checks every entry before anything is written (src/extract/inspect.ts), and the declared
 *    total against the free disk space.
 * 4. Writes the entries into `.svc-dl/extract-X.new`, brings over whatever the user added to
 *    the existing folder (never the files of the previous extraction), then swaps the folders
 *    with two renames and records the new file list; the old folder is then deleted.
 *
 * The ZIP is kept. Throws SvcError `unsafe_archive` (exit 7, nothing written into the folder),
 * FileSystemError `file_exists` (the folder's place holds a file or symlink, or a user file
 * clashes with the archive), `no_space`/`permission_denied`/`write_failed` (exit 8), and the
 * signal's reason.
 */
export async function extractPack(opts: ExtractPackOptions): Promise<ExtractResult> {
  const { dir, file } = opts;
  const folder = extractFolderName(file);
  const target = join(dir, folder);
  const archive = join(dir, file);
  const stateDir = stateDirOf(dir);
  ensureStateDir(dir);
  recoverInterrupted(dir, folder);

  const manifest = readExtractedManifest(dir);
  const previous = manifest.folders[folder];
  if (previous?.sha256 === opts.sha256 && previous.archive === file && isIntact(target, previous)) {
    return { status: "unchanged", path: target, files: previous.files.length };
  }
  const archiveStat = lstatSync(archive, { throwIfNoEntry: false });
  if (!archiveStat?.isFile()) {
    throw new FileSystemError(`${archive} is not a regular file; nothing was extracted`, {
      code: "file_exists",
      detail: { archiveNotFile: true },
    });
  }
  refuseNonFolder(target);
  const plan = await inspectArchive(archive, archiveStat.size);
  const next = join(stateDir, `${PREFIX}${folder}${NEW_SUFFIX}`);
  const aside = join(stateDir, `${PREFIX}${folder}${OLD_SUFFIX}`);
  let written: { files: string[]; dirs: string[] };
  try {
    const free = freeBytes(dir);
    if (free !== undefined && plan.declaredBytes > free) {
      throw unsafeArchive(archive, {
        kind: "no space",
        reason: `its entries declare ${plan.declaredBytes} bytes, more than the ${free} bytes free on the disk`,
      });
    }
    mkdirSync(next, { mode: 0o755 });
    written = await writeEntries(archive, plan.zip, plan.entries, next, opts.signal);
    const current = refuseNonFolder(target);
    if (current) {
      await carryOver({
        target,
        next,
        oldFiles: new Set(previous?.files ?? []),
        oldDirs: new Set(previous?.dirs ?? []),
        newFiles: new Set(written.files),
        newDirs: new Set(written.dirs),
      });
    }
    try {
      await syncTree(next, written); // durable before the swap (src/io/durable.ts)
    } catch (err) {
      throw extractFsError(`cannot write ${next}`, err);
    }
    swapInto(target, next, aside, current);
  } catch (err) {
    removeQuietly(next);
    throw err;
  } finally {
    plan.zip.close();
  }
  manifest.folders[folder] = {
    archive: file,
    sha256: opts.sha256,
    files: written.files,
    dirs: written.dirs,
    extracted_at: new Date().toISOString(),
  };
  await writeExtractedManifest(dir, manifest);
  removeQuietly(aside); // on failure the next run removes what is left (recoverInterrupted)
  return { status: "extracted", path: target, files: written.files.length };
}

/**
 * Whether the folder's place holds a real folder (true) or nothing (false). Throws
 * FileSystemError `file_exists` for a file or a symlink there: svc-dl never extracts through a
 * link it did not make.
 */
function refuseNonFolder(target: string): boolean {
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (st === undefined) return false;
  if (st.isDirectory()) return true;
  throw new FileSystemError(
    `${target} exists and is not a folder (${st.isSymbolicLink() ? "a symlink" : "a file"}); nothing was extracted`,
    { code: "file_exists", detail: { path: target, extracting: true } },
  );
}

/** Moves the existing folder aside (when there is one), then the new one into its place. */
function swapInto(target: string, next: string, aside: string, hasOld: boolean): void {
  try {
    removeTree(aside);
    if (hasOld) renameSync(target, aside);
    try {
      renameSync(next, target);
    } catch (err) {
      if (hasOld) renameSync(aside, target);
      throw err;
    }
    syncDir(dirname(target));
    syncDir(dirname(next));
  } catch (err) {
    throw extractFsError(`cannot move the extracted folder into ${target}`, err);
  }
}

/**
 * Finishes interrupted extractions of `dir`: `extract-X.old` goes back to `X` when `X` is
 * missing (the swap was cut between its two renames), else is deleted; `extract-X.new` is
 * deleted (src/io/remove-tree.ts: bounded, never follows a link, however deep the tree). Only a
 * real directory is put back (never a symlink planted there). Names that are not safe folder
 * names are left alone. A leftover of another folder that cannot be removed is left for a later
 * run, so it never blocks this item; one of `folder` (about to be rebuilt) throws
 * FileSystemError (exit 8).
 */
function recoverInterrupted(dir: string, folder: string): void {
  const stateDir = stateDirOf(dir);
  for (const name of readdirSync(stateDir)) {
    if (!name.startsWith(PREFIX)) continue;
    const isOld = name.endsWith(OLD_SUFFIX);
    if (!isOld && !name.endsWith(NEW_SUFFIX)) continue;
    const owner = name.slice(PREFIX.length, -(isOld ? OLD_SUFFIX : NEW_SUFFIX).length);
    if (!isSafeFolderName(owner)) continue;
    const path = join(stateDir, name);
    const target = join(dir, owner);
    try {
      const aside = lstatSync(path);
      if (isOld && aside.isDirectory() && !lstatSync(target, { throwIfNoEntry: false })) {
        renameSync(path, target);
      } else {
        removeTree(path);
      }
    } catch (err) {
      if (owner === folder) throw extractFsError(`cannot clean up ${path}`, err);
    }
  }
}

/** Removes a tree of ours when it can; a failure is left for the next run's clean-up. */
function removeQuietly(path: string): void {
  try {
    removeTree(path);
  } catch {
    // recoverInterrupted removes it next time
  }
}

/** Whether the folder is a real directory holding every file the manifest lists. */
function isIntact(target: string, record: ExtractedFolder): boolean {
  if (!lstatSync(target, { throwIfNoEntry: false })?.isDirectory()) return false;
  return record.files.every(
    (rel) =>
      lstatSync(join(target, ...rel.split("/")), { throwIfNoEntry: false })?.isFile() === true,
  );
}

/** Bytes available to this user on the file system of `dir`, or undefined when unknown. */
function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
