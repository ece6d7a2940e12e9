import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { durableRename } from "./durable.js";
import { nonRegularKind } from "./regular-file.js";
import { lstatIfExists, readRegularFile } from "./safe-fs.js";

/**
 * The one writer of every file svc-dl writes outside its own `.svc-dl/` folder (cli-contract
 * "Operating unattended": `--report`, `--metrics`, the GitHub step summary; "Manifest, lock and
 * cache": `svc-dl.lock`). The rule: such a path holds a regular file or nothing. A symbolic
 * link, FIFO, socket, device node or directory there is refused (FileSystemError
 * `unsafe_output_path`, exit 8) before anything is opened, and nothing is written through it or
 * in its place: a FIFO is never opened (it could block, or feed a reader), a device is never
 * written (`--metrics /dev/null` run as root must leave `/dev/null` alone), a symlink is neither
 * followed nor replaced.
 *
 * Files inside `.svc-dl/` are private and written by src/io/safe-fs.ts; these are the user's.
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What the file is, for messages: `--report file`, `svc-dl.lock`, `GITHUB_STEP_SUMMARY file`. */
export type OutputWhat = string;

/** The refusal of a path that holds something other than a regular file. */
function refusal(what: OutputWhat, path: string, kind: string): FileSystemError {
  return new FileSystemError(
    `refusing to write the ${what} ${path}: it is ${kind}, and svc-dl replaces only a regular file`,
    { code: "unsafe_output_path" },
  );
}

/** Throws {@link refusal} when something other than a regular file is at `path`. */
function checkRegularOrAbsent(what: OutputWhat, path: string): Stats | undefined {
  let st: Stats | undefined;
  try {
    st = lstatIfExists(path);
  } catch (err) {
    throw fsError(`cannot write the ${what} ${path}`, err);
  }
  const kind = st ? nonRegularKind(st) : undefined;
  if (kind !== undefined) throw refusal(what, path, kind);
  return st;
}

/**
 * The text of the file at `path` (absolute) that svc-dl reads before it replaces it (the lock
 * it compares with), under the same rule: undefined when nothing is there; a non-regular entry
 * is refused (`unsafe_output_path`, exit 8) and never opened, so a FIFO cannot block the run.
 * At most `maxBytes` (default 64 MiB; a larger file is refused as `write_failed`). Other read
 * failures throw FileSystemError (exit 8) naming `what` and `path`.
 */
export function readOutputFile(
  what: OutputWhat,
  path: string,
  maxBytes = 64 << 20,
): string | undefined {
  const st = checkRegularOrAbsent(what, path);
  if (st === undefined) return undefined;
  if (st.size > maxBytes) {
    throw new FileSystemError(`cannot read the ${what} ${path}: larger than ${maxBytes} bytes`, {
      code: "write_failed",
    });
  }
  let text: string | undefined;
  try {
    text = readRegularFile(path, maxBytes);
  } catch (err) {
    throw fsError(`cannot read the ${what} ${path}`, err);
  }
  if (text !== undefined) return text;
  // replaced since the check: refused when not a regular file now, nothing when removed
  if (checkRegularOrAbsent(what, path) === undefined) return undefined;
  throw new FileSystemError(`cannot read the ${what} ${path}: it changed while being read`, {
    code: "write_failed",
  });
}

/**
 * Replaces the file at `path` (absolute) with `data`, atomically and durably: a temp file in
 * the same folder (`O_EXCL|O_NOFOLLOW`), written, flushed, renamed over `path`, the folder
 * flushed (src/io/durable.ts). A reader never sees half a file. The new file keeps the mode of
 * the regular file it replaces, else gets 0666 less the umask. Checked twice, before the temp
 * file is made and again just before the rename: a non-regular entry at `path` is refused
 * (`unsafe_output_path`, exit 8) and left as it is. Other failures throw FileSystemError
 * `no_space`, `permission_denied` or `write_failed` (exit 8) naming `what` and `path`; the temp
 * file is removed.
 */
export function writeOutputFile(what: OutputWhat, path: string, data: string | Uint8Array): void {
  const st = checkRegularOrAbsent(what, path);
  const mode = st ? st.mode & 0o777 : undefined;
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  let made = false;
  try {
    const fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
      mode ?? 0o666,
    );
    made = true;
    try {
      if (mode !== undefined) fchmodSync(fd, mode); // any umask
      writeAll(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    checkRegularOrAbsent(what, path); // something put there meanwhile is refused too
    durableRename(tmp, path, { fileSynced: true });
    made = false;
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    throw fsError(`cannot write the ${what} ${path}`, err);
  } finally {
    if (made) rmSync(tmp, { force: true });
  }
}

/**
 * Appends `data` to the file at `path` (absolute), creating it when missing (mode 0666 less the
 * umask): for a file another program owns and reads after svc-dl (the GitHub runner's
 * `GITHUB_STEP_SUMMARY`). A non-regular entry is refused before it is opened; the open itself
 * never follows a symlink and never blocks (`O_NOFOLLOW|O_NONBLOCK`), and the opened file must
 * be the regular file checked (same device and inode), else nothing is written. Throws as
 * {@link writeOutputFile}.
 */
export function appendOutputFile(what: OutputWhat, path: string, data: string | Uint8Array): void {
  const before = checkRegularOrAbsent(what, path);
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK,
      0o666,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // swapped in since the check: a symlink (ELOOP), a FIFO without a reader (ENXIO)
    if (code === "ELOOP" || code === "EMLINK") throw refusal(what, path, "a symbolic link");
    if (code === "ENXIO") throw refusal(what, path, "a FIFO (named pipe)");
    if (code === "EISDIR") throw refusal(what, path, "a directory");
    throw fsError(`cannot append to the ${what} ${path}`, err);
  }
  try {
    const st = fstatSync(fd);
    const kind = nonRegularKind(st);
    if (kind !== undefined) throw refusal(what, path, kind);
    if (before && (st.dev !== before.dev || st.ino !== before.ino)) {
      throw refusal(what, path, "a different file than the one checked (replaced meanwhile)");
    }
    writeAll(fd, data);
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    throw fsError(`cannot append to the ${what} ${path}`, err);
  } finally {
    closeSync(fd);
  }
}

/** Writes every byte of `data` at the fd's position; a write of 0 bytes is a failure, not a spin. */
function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let done = 0;
  while (done < buf.length) {
    const n = writeSync(fd, buf, done, buf.length - done);
    if (n <= 0) {
      const err: NodeJS.ErrnoException = new Error("the write stored no bytes");
      err.code = "EIO";
      throw err;
    }
    done += n;
  }
}
