import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync, writevSync } from "node:fs";
import { FileSystemError } from "../errors/file-system-error.js";

/**
 * The fast writer of the download engine (issue 7: tune here). Chunks are hashed (SHA-256)
 * as they arrive and written synchronously in batches with `writevSync` on a raw fd: measured
 * 1.24× curl against 1.44–1.6× for `pipe()` into `fs.createWriteStream`, with less CPU.
 * Memory: at most `batchBytes` of chunks are held. Because `write()` returns only after the
 * bytes are handed to the kernel (or batched), a reader that calls it from a `'data'` handler
 * honours backpressure without buffering.
 */
export interface WriterTuning {
  /** Bytes gathered before one `writev`; default 1 MiB. */
  batchBytes: number;
  /** Most chunks in one `writev` (IOV_MAX is 1024 on Linux); default 512. */
  maxChunks: number;
  /** Longest time batched bytes wait on a slow connection, in ms; default 500. */
  maxDelayMs: number;
}

/** Default {@link WriterTuning}. */
export const DEFAULT_TUNING: WriterTuning = {
  batchBytes: 1 << 20,
  maxChunks: 512,
  maxDelayMs: 500,
};

/** A file being written by the engine, with a running SHA-256 of every byte in it. */
export interface HashingFileWriter {
  /** Hashes and (batched) writes one chunk. Throws FileSystemError (exit 8) on write failure. */
  write(chunk: Buffer): void;
  /** Writes out every batched chunk. */
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
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let closed = false;
  let lastFlushAt = Date.now();

  const flush = (): void => {
    if (pendingBytes === 0) return;
    lastFlushAt = Date.now();
    const chunks = pending;
    const length = pendingBytes;
    pending = [];
    pendingBytes = 0;
    try {
      const written = writevSync(fd, chunks, position);
      if (written < length) {
        // Short write (rare): write the rest in one buffer.
        const rest = Buffer.concat(chunks).subarray(written);
        let offset = 0;
        while (offset < rest.length) {
          offset += writeSync(fd, rest, offset, rest.length - offset, position + written + offset);
        }
      }
      position += length;
    } catch (err) {
      throw fsError(`cannot write ${path}`, err);
    }
  };

  return {
    get bytes() {
      return position + pendingBytes;
    },
    write(chunk) {
      hash.update(chunk);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (
        pendingBytes >= tuning.batchBytes ||
        pending.length >= tuning.maxChunks ||
        Date.now() - lastFlushAt >= tuning.maxDelayMs
      ) {
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
