import * as nodeFs from "node:fs";
import { dirname, join } from "node:path";

/**
 * The one rule for durable files (cli-contract "Downloads": a file svc-dl reports as complete
 * is on the disk, even after a power cut): a file's bytes are flushed (`fsync`) before it is
 * renamed into place, and the directory that holds the new name is flushed after the rename.
 * Long writes keep the final flush short with a background `fdatasync` every
 * {@link SYNC_EVERY_BYTES} ({@link BackgroundSync}), and an fd is never closed while a flush on
 * it is queued (its number could be reused by another open meanwhile).
 *
 * Every function takes the file-system calls as an optional last argument so a test can record
 * their order; the default is `node:fs`.
 */
export interface DurableFs {
  openSync(path: string, flags: string | number): number;
  closeSync(fd: number): void;
  fsyncSync(fd: number): void;
  renameSync(from: string, to: string): void;
  fsync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
  fdatasync(fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void;
}

/** Bytes written between two background `fdatasync` calls (measured: 16 MiB doubles sys time). */
export const SYNC_EVERY_BYTES = 64 << 20;

const real: DurableFs = nodeFs;

/** Flushes the file at `path` (data and metadata) to the disk. Throws the file-system error. */
export function syncFile(path: string, fs: DurableFs = real): void {
  const fd = fs.openSync(path, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** {@link syncFile} on the thread pool, so the event loop keeps running while the disk writes. */
export async function syncFileAsync(path: string, fs: DurableFs = real): Promise<void> {
  const fd = fs.openSync(path, "r");
  try {
    await new Promise<void>((resolve, reject) =>
      fs.fsync(fd, (err) => (err ? reject(err) : resolve())),
    );
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Flushes the directory `dir` so the names created, renamed or removed in it survive a power
 * cut. File systems and platforms that cannot flush a directory (Windows cannot open one;
 * some network file systems refuse) are left as they are: nothing more can be done there.
 */
export function syncDir(dir: string, fs: DurableFs = real): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, "r");
  } catch (err) {
    if (unsupported(err)) return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    if (!unsupported(err)) throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Renames the complete file `from` over `to` durably: `from` is flushed first (so the new name
 * never points at blocks that are not on the disk), then renamed, then the directory of `to`
 * (and of `from`, when it differs) is flushed, at once or, with `dirs`, when that batch is
 * flushed. `fileSynced` skips the first flush when the caller has just flushed the file through
 * its own fd. Throws the file-system error.
 */
export function durableRename(
  from: string,
  to: string,
  opts: { fileSynced?: boolean; dirs?: DirSyncBatch } = {},
  fs: DurableFs = real,
): void {
  if (opts.fileSynced !== true) syncFile(from, fs);
  fs.renameSync(from, to);
  const dirs = opts.dirs ?? new DirSyncBatch(fs);
  dirs.add(dirname(to));
  dirs.add(dirname(from));
  if (opts.dirs === undefined) dirs.flush();
}

/**
 * Directory flushes deferred to one {@link DirSyncBatch.flush}: a run that renames thousands of
 * files into one folder (`install` placing cached items) flushes that folder once, not once per
 * file. Each file is still flushed before its rename, so a name never points at blocks that are
 * not on the disk; until the flush, a power cut can only lose names, which the next run's check
 * of the recorded files finds missing and fetches again.
 */
export class DirSyncBatch {
  readonly #dirs = new Set<string>();
  readonly #fs: DurableFs;

  constructor(fs: DurableFs = real) {
    this.#fs = fs;
  }

  /** Adds `dir` (once, however often it is added) to the directories to flush. */
  add(dir: string): void {
    this.#dirs.add(dir);
  }

  /** Flushes every directory added since the last flush ({@link syncDir}); throws its error. */
  flush(): void {
    const dirs = [...this.#dirs];
    this.#dirs.clear();
    for (const dir of dirs) syncDir(dir, this.#fs);
  }
}

/**
 * Flushes a written tree before it is renamed into place: every file (on the thread pool, a
 * few at a time), then every folder, deepest first, then `root` itself. `files` and `dirs` are
 * POSIX paths relative to `root`.
 */
export async function syncTree(
  root: string,
  tree: { files: readonly string[]; dirs: readonly string[] },
  fs: DurableFs = real,
): Promise<void> {
  const queue = [...tree.files];
  const worker = async (): Promise<void> => {
    for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
      await syncFileAsync(join(root, ...rel.split("/")), fs);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const dirs = [...tree.dirs].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const rel of dirs) syncDir(join(root, ...rel.split("/")), fs);
  syncDir(root, fs);
}

/**
 * Background flushing of one fd being written sequentially: after each write the caller
 * reports the bytes now in the file; every {@link SYNC_EVERY_BYTES} one `fdatasync` goes to
 * the thread pool (at most one in flight), so the final `fsync` finds little left to write.
 * {@link close} closes the fd, after any queued flush; {@link settled} reports a failed one (a
 * later `fsync` through another fd would not see it).
 */
export class BackgroundSync {
  readonly #fd: number;
  readonly #fs: DurableFs;
  readonly #every: number;
  #synced: number;
  #inFlight: Promise<void> | undefined;
  #error: NodeJS.ErrnoException | undefined;
  #closed = false;

  /** `from`: bytes already in the file (a resumed part) that count as synced. */
  constructor(fd: number, from = 0, every = SYNC_EVERY_BYTES, fs: DurableFs = real) {
    this.#fd = fd;
    this.#fs = fs;
    this.#every = every;
    this.#synced = from;
  }

  /** Reports that the file now holds `position` bytes; may start a background `fdatasync`. */
  wrote(position: number): void {
    if (this.#inFlight || this.#closed || position - this.#synced < this.#every) return;
    this.#inFlight = new Promise<void>((resolve) => {
      this.#fs.fdatasync(this.#fd, (err) => {
        if (err) this.#error ??= err;
        else this.#synced = position;
        this.#inFlight = undefined;
        resolve();
      });
    });
  }

  /** Waits for a queued flush; throws the first error a background flush met. */
  async settled(): Promise<void> {
    await this.#inFlight;
    if (this.#error) throw this.#error;
  }

  /** Closes the fd now, or as soon as the queued flush returns (idempotent; never throws). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const closeFd = (): void => {
      try {
        this.#fs.closeSync(this.#fd);
      } catch {
        // already reported through the write that failed
      }
    };
    if (this.#inFlight) void this.#inFlight.then(closeFd);
    else closeFd();
  }
}

function unsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "EISDIR" || code === "EINVAL" || code === "ENOTSUP" || code === "EPERM";
}
