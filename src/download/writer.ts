import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { FileSystemError } from "../errors/file-system-error.js";

/**
 * The fast writer of the download engine. Every chunk is hashed (SHA-256) as it
 * arrives and written synchronously on a raw fd: measured faster and with less CPU than
 * `fs.createWriteStream` (no thread-pool round trip per chunk) and than async `fs.write` of
 * 1 MiB batches on the thread pool (which raised system time on this 2-core machine). Large
 * chunks (≥ `directBytes`) are written straight from the caller's buffer; small ones are copied
 * into one reused batch buffer of `batchBytes` and written when it is full, after `maxDelayMs`,
 * or at `flush`/`close`. The writer never keeps a reference to a caller's chunk, so callers may
 * reuse their buffer (the socket transport does). Memory: one batch buffer, allocated on first
 * use. Because `write()` returns only after the bytes are in the file or the batch, a reader
 * that calls it from its read callback honours backpressure without buffering.
 */
export interface WriterTuning {
  /** Size of the batch buffer for small chunks, in bytes; default 1 MiB. */
  batchBytes: number;
  /** Chunks of at least this many bytes are written directly, unbatched; default 128 KiB. */
  directBytes: number;
  /** Longest time batched bytes wait on a slow connection, in ms; default 500. */
  maxDelayMs: number;
}

/** Default {@link WriterTuning}. */
export const DEFAULT_TUNING: WriterTuning = {
  batchBytes: 1 << 20,
  directBytes: 128 * 1024,
  maxDelayMs: 500,
};

/** A file being written by the engine, with a running SHA-256 of every byte in it. */
export interface HashingFileWriter {
  /**
   * Hashes and writes (or batches a copy of) one chunk; `chunk` is not retained. Throws
   * FileSystemError (exit 8) on write failure.
   */
  write(chunk: Buffer): void;
  /** Writes out the batched bytes. */
  flush(): void;
  /** Flushes and closes the fd (idempotent; never throws after a failure was already thrown). */
  close(): void;
  /** Lower-case hex SHA-256 of everything written so far (call once, after `close`). */
  digest(): string;
  /** Bytes in the file: the existing part plus everything written. */
  readonly bytes: number;
}

/**
 * Opens `path` for a download. With `resumeFrom` > 0 the file's first `resumeFrom` bytes are
 * kept and hashed first (read in 1 MiB blocks) and new bytes are appended; with 0 the file is
 * truncated. Throws FileSystemError `write_failed` / `no_space` / `permission_denied` (exit 8).
 */
export function openHashingWriter(
  path: string,
  resumeFrom: number,
  tuning: WriterTuning = DEFAULT_TUNING,
): HashingFileWriter {
  const hash = createHash("sha256");
  let fd: number;
  try {
    fd = openSync(path, resumeFrom > 0 ? "r+" : "w");
  } catch (err) {
    throw fsError(`cannot open ${path}`, err);
  }
  let position = 0;
  if (resumeFrom > 0) {
    try {
      position = hashExisting(fd, resumeFrom, hash);
    } catch (err) {
      closeSync(fd);
      throw fsError(`cannot read ${path}`, err);
    }
  }
  let batch: Buffer | undefined;
  let pendingBytes = 0;
  let closed = false;
  let lastFlushAt = Date.now();

  /** Writes all of `buf[0, length)` at `position` (loops over short writes). */
  const writeAll = (buf: Buffer, length: number): void => {
    try {
      let done = 0;
      while (done < length) {
        done += writeSync(fd, buf, done, length - done, position + done);
      }
    } catch (err) {
      throw fsError(`cannot write ${path}`, err);
    }
    position += length;
  };

  const flush = (): void => {
    lastFlushAt = Date.now();
    if (pendingBytes === 0 || !batch) return;
    const length = pendingBytes;
    pendingBytes = 0;
    writeAll(batch, length);
  };

  return {
    get bytes() {
      return position + pendingBytes;
    },
    write(chunk) {
      hash.update(chunk);
      if (chunk.length >= tuning.directBytes || chunk.length > tuning.batchBytes) {
        flush();
        writeAll(chunk, chunk.length);
        return;
      }
      batch ??= Buffer.allocUnsafeSlow(tuning.batchBytes);
      if (pendingBytes + chunk.length > batch.length) flush();
      chunk.copy(batch, pendingBytes);
      pendingBytes += chunk.length;
      if (pendingBytes === batch.length || Date.now() - lastFlushAt >= tuning.maxDelayMs) {
        flush();
      }
    },
    flush,
    close() {
      if (closed) return;
      closed = true;
      try {
        flush();
      } finally {
        closeSync(fd);
      }
    },
    digest() {
      return hash.digest("hex");
    },
  };
}

/** Hashes the first `length` bytes of `fd`; returns the bytes actually present (≤ length). */
function hashExisting(fd: number, length: number, hash: Hash): number {
  const block = Buffer.allocUnsafe(Math.min(1 << 20, length));
  let done = 0;
  while (done < length) {
    const n = readSync(fd, block, 0, Math.min(block.length, length - done), done);
    if (n === 0) break;
    hash.update(block.subarray(0, n));
    done += n;
  }
  return done;
}

/** SHA-256 (hex) and size of a whole file, read in 1 MiB blocks; for `verify`. */
export function hashFile(path: string): { sha256: string; bytes: number } {
  const fd = openSync(path, "r");
  try {
    const hash = createHash("sha256");
    const bytes = hashExisting(fd, Number.MAX_SAFE_INTEGER, hash);
    return { sha256: hash.digest("hex"), bytes };
  } finally {
    closeSync(fd);
  }
}

/** Maps a file-system error to FileSystemError with a code the user can act on. */
export function fsError(what: string, err: unknown): FileSystemError {
  const code = (err as NodeJS.ErrnoException).code;
  const local =
    code === "ENOSPC" || code === "EDQUOT"
      ? "no_space"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? "permission_denied"
        : "write_failed";
  const hint =
    local === "no_space"
      ? "Free some disk space and run the same command again; the partial data is kept."
      : local === "permission_denied"
        ? "Check the permissions of the output directory, or choose another with -o."
        : undefined;
  return new FileSystemError(`${what}: ${(err as Error).message}`, {
    code: local,
    ...(hint ? { hint } : {}),
    cause: err,
  });
}
