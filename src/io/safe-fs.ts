import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { durableRename } from "./durable.js";
import { DEFAULT_MAX_BYTES, NotRegularFileError, readFileNoBlock } from "./regular-file.js";

/**
 * File-system helpers for directories and files svc-dl does not trust (cli-contract
 * "Downloads": everything under `<dir>/.svc-dl/` is untrusted; "Configuration": the config
 * directory and file). Rules: never follow a symlink we did not make (`lstat`, `O_NOFOLLOW`),
 * never block on a FIFO (`O_NONBLOCK` + a regular-file check), create files `O_EXCL` with mode
 * 0600 set explicitly (`fchmod`, so no umask can widen it), and replace files by rename (a
 * rename replaces a symlink itself, never its target; write-file-atomic writes through one).
 */

/** Mode of private directories (`.svc-dl/`, the config directory). */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of private files (state, partial data and metadata, lock owner, config). */
export const PRIVATE_FILE_MODE = 0o600;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
/** Open flags of a read that never follows a symlink and never blocks on a FIFO. */
export const READ_NO_FOLLOW = constants.O_RDONLY | NOFOLLOW | NONBLOCK;

/** `lstat` that answers undefined for a path that does not exist (ENOENT, ENOTDIR); other errors throw. */
export function lstatIfExists(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * Why a directory may not hold private data, or undefined when it may: a symlink, not a
 * directory, owned by another user (than the effective uid), or writable by group or others.
 * The ssh rule (cli-contract "Configuration", "Downloads").
 */
export function unsafeDirProblem(st: Stats): string | undefined {
  if (st.isSymbolicLink()) return "is a symbolic link";
  if (!st.isDirectory()) return "is not a directory";
  const uid = process.geteuid?.();
  if (uid !== undefined && st.uid !== uid) return `is owned by another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) {
    return `is writable by ${st.mode & 0o020 ? "its group" : "others"} (mode ${(st.mode & 0o777).toString(8)})`;
  }
  return undefined;
}

/**
 * Makes `path` a private directory: creates it (parent must exist) with mode 0700 set
 * explicitly, or checks an existing one with {@link unsafeDirProblem} and tightens a readable
 * one (e.g. 0755) to 0700. Calls `refuse(problem)` and throws its error for an unsafe one.
 * Other errors (EACCES, EROFS, ENOENT of the parent) are thrown as they are.
 */
export function ensurePrivateDir(path: string, refuse: (problem: string) => Error): void {
  let st = lstatIfExists(path);
  if (!st) {
    try {
      mkdirSync(path, { mode: PRIVATE_DIR_MODE });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    st = lstatSync(path);
    const problem = st.isSymbolicLink() || !st.isDirectory() ? unsafeDirProblem(st) : undefined;
    if (problem) throw refuse(problem);
    chmodSync(path, PRIVATE_DIR_MODE);
    return;
  }
  const problem = unsafeDirProblem(st);
  if (problem) throw refuse(problem);
  if ((st.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(path, PRIVATE_DIR_MODE);
}

/**
 * Checks an existing directory with {@link unsafeDirProblem}; a missing one is fine (returns
 * false). Returns true when it exists and is safe; throws `refuse(problem)` otherwise.
 */
export function checkPrivateDir(path: string, refuse: (problem: string) => Error): boolean {
  const st = lstatIfExists(path);
  if (!st) return false;
  const problem = unsafeDirProblem(st);
  if (problem) throw refuse(problem);
  return true;
}

/**
 * Opens an existing regular file without following a symlink and without blocking on a FIFO.
 * Returns the fd and its stats, or undefined when the path does not exist or is not a regular
 * file (a symlink, FIFO, directory, device). `write` opens read-write (no truncation).
 */
export function openRegular(path: string, write = false): { fd: number; st: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, write ? constants.O_RDWR | NOFOLLOW | NONBLOCK : READ_NO_FOLLOW);
  } catch (err) {
    if (isNotRegular(err)) return undefined;
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    return undefined;
  }
  return { fd, st };
}

/**
 * True for an open error that means "nothing usable there": missing (ENOENT, ENOTDIR), a
 * symlink refused by `O_NOFOLLOW` (ELOOP; EMLINK on some BSDs), a directory (EISDIR), or a FIFO
 * or socket without a reader (ENXIO).
 */
export function isNotRegular(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    code === "ENOENT" ||
    code === "ENOTDIR" ||
    code === "ELOOP" ||
    code === "EMLINK" ||
    code === "EISDIR" ||
    code === "ENXIO"
  );
}

/**
 * Reads a regular file as UTF-8, never through a symlink. Returns undefined when it is missing
 * or not a regular file, or larger than `maxBytes`. Throws other read errors.
 */
export function readRegularFile(path: string, maxBytes = DEFAULT_MAX_BYTES): string | undefined {
  return readRegularBytes(path, maxBytes)?.toString("utf8");
}

/** {@link readRegularFile} as bytes: same rules, the file's bytes as they are (src/io/regular-file.ts). */
export function readRegularBytes(path: string, maxBytes = DEFAULT_MAX_BYTES): Buffer | undefined {
  try {
    return readFileNoBlock(path, { maxBytes });
  } catch (err) {
    if (err instanceof NotRegularFileError || isNotRegular(err)) return undefined;
    throw err;
  }
}

/**
 * Creates a new file at `path` for writing: `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600 set with
 * `fchmod` (any umask). Fails with EEXIST when anything (a symlink included) is there. Returns
 * the fd.
 */
export function createPrivateFile(path: string): number {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
    PRIVATE_FILE_MODE,
  );
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/**
 * Replaces `path` with a new private file holding `data`: a temp file beside it created by
 * {@link createPrivateFile}, fsync'd, then renamed over `path` and the directory fsync'd (a
 * symlink at `path` is replaced, never followed). Throws the file-system error; the temp file is removed on failure.
 *
 * `durable: false` skips both flushes, for a record that no power cut can make matter (a lock's
 * owner: after a reboot no process of the old boot holds anything; a partial download's
 * metadata: without it the download starts over); it is still replaced
 * atomically, and its reader must accept it missing or unreadable, as it must anyway.
 */
export function writePrivateFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { durable?: boolean } = {},
): void {
  writeFileAtomicNoFollow(path, data, PRIVATE_FILE_MODE, opts.durable !== false);
}

/**
 * The atomic writer of private files: `mode` undefined leaves the umask's default (0666 less the
 * umask). Files outside `.svc-dl/` are written by src/io/output-file.ts.
 */
function writeFileAtomicNoFollow(
  path: string,
  data: string | Uint8Array,
  mode: number | undefined,
  durable: boolean,
): void {
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
    const fd = openSync(tmp, flags, mode ?? 0o666);
    try {
      if (mode !== undefined) fchmodSync(fd, mode); // any umask
      const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      let done = 0;
      while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (durable)
      durableRename(tmp, path, { fileSynced: true }); // and the directory after (src/io/durable.ts)
    else renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Removes a file or a symlink itself (never its target, never a directory tree); never throws. */
export function removeEntry(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // a directory or a permission problem: left for the caller's next check to report
  }
}
