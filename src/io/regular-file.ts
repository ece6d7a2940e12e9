import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/**
 * The one reader of files svc-dl reads from a path it did not make (cli-contract "Untrusted
 * text, paths and caches"): the manifest, the config file, a key file, `--ca-file`, the lock
 * file, the state files under `<dir>/.svc-dl/`. The rule: the file is opened without blocking
 * (`O_NONBLOCK`, so a FIFO at the path cannot hold the run for ever), then checked on the open
 * file (`fstat`, so it cannot be swapped between check and read): anything but a regular file
 * (a FIFO, socket, device node, directory) is refused with {@link NotRegularFileError} and never
 * read. A symbolic link is followed only when the user named the path (`follow: true`: a
 * manifest or CA file may be a link the user made); at a path svc-dl owns it is refused
 * (`O_NOFOLLOW`).
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Default most bytes read: 64 MiB. */
export const DEFAULT_MAX_BYTES = 64 << 20;

/**
 * What kind of non-regular entry `st` is ("a symbolic link", "a FIFO (named pipe)", …), or
 * undefined for a regular file.
 */
export function nonRegularKind(st: Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device node";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  return "not a regular file";
}

/**
 * A file refused by {@link readFileNoBlock}: not a regular file, or larger than allowed. The
 * message (`it is a FIFO (named pipe), not a regular file`) completes a caller's sentence
 * (`cannot read the manifest PATH: …`).
 */
export class NotRegularFileError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "NotRegularFileError";
  }
}

/**
 * Reads the whole file at `path` under the rule above. `follow` (default false): follow a
 * symbolic link at `path` (a link there is otherwise refused); `maxBytes` (default 64 MiB): a
 * larger file is refused. Throws {@link NotRegularFileError} for a refused file, and the
 * open/read error as it is otherwise (ENOENT, EACCES…). Never blocks on a FIFO, never spins on
 * a read that returns nothing.
 */
export function readFileNoBlock(
  path: string,
  opts: { follow?: boolean; maxBytes?: number } = {},
): Buffer {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK | (opts.follow ? 0 : NOFOLLOW));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // O_NOFOLLOW refuses a link with ELOOP (EMLINK on some BSDs); a socket cannot be opened (ENXIO)
    if (!opts.follow && (code === "ELOOP" || code === "EMLINK")) throw refused("a symbolic link");
    if (code === "ENXIO") throw refused("a socket");
    if (code === "EISDIR") throw refused("a directory");
    throw err;
  }
  try {
    const st = fstatSync(fd);
    const kind = nonRegularKind(st);
    if (kind !== undefined) throw refused(kind);
    if (st.size > maxBytes) {
      throw new NotRegularFileError(`it is larger than ${maxBytes} bytes (${st.size})`);
    }
    const buf = Buffer.alloc(st.size);
    let done = 0;
    while (done < buf.length) {
      const n = readSync(fd, buf, done, buf.length - done, done);
      if (n === 0) break; // shrunk meanwhile: what is there
      done += n;
    }
    return buf.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

function refused(kind: string): NotRegularFileError {
  return new NotRegularFileError(`it is ${kind}, not a regular file`);
}
