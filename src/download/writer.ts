import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { fsError } from "../errors/fs-error.js";
import { BackgroundSync, type DurableFs, SYNC_EVERY_BYTES } from "../io/durable.js";

/** How a {@link HashingFileWriter} batches its writes. */
export interface WriterTuning {
  /** Bytes gathered before one write; default 1 MiB. */
  batchBytes: number;
  /** Longest time gathered bytes wait on a slow connection, in ms; default 500. */
  maxDelayMs: number;
  /** Bytes between two background `fdatasync` calls; default 64 MiB (src/io/durable.ts). */
  syncEveryBytes?: number;
  /** The flush and close calls (tests record their order); default `node:fs`. */
  fs?: DurableFs;
}

/** Default {@link WriterTuning}. */
export const DEFAULT_TUNING: WriterTuning = {
  batchBytes: 1 << 20,
  maxDelayMs: 500,
};

/**
 * A file being written by the download core, with a running SHA-256 of every byte in it. Body
 * chunks are borrowed views (the fast path's reused read buffer): each is hashed in place at
 * once and copied into one reused 1 MiB buffer, written with one `writeSync` per MiB on a raw
 * fd (docs/performance.md); a chunk of 256 KiB or more that finds the buffer empty is written
 * straight from the view. Because `write()` returns only after the bytes are in the file or
 * the buffer, a data callback that calls it never buffers more than one batch.
 */
export interface HashingFileWriter {
  /** Hashes `chunk` and gathers it (copied; never kept). Throws FileSystemError (exit 8) on write failure. */
  write(chunk: Buffer): void;
  /** Writes out the gathered bytes. */
  flush(): void;
  /**
   * Flushes and closes the fd (idempotent; never throws after a failure was already thrown).
   * A background `fdatasync` still queued delays the close until it returns.
   */
  close(): void;
  /**
   * Waits for a background `fdatasync` still queued; throws FileSystemError (exit 8) when one
   * failed. The caller then makes the file durable (`syncFileAsync`, src/io/durable.ts).
   */
  settled(): Promise<void>;
  /** Lower-case hex SHA-256 of everything written so far (call once, after `close`). */
  digest(): string;
  /** Bytes in the file: the existing part plus everything written or gathered. */
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
  const sink = openSink(path, resumeFrom, hash, tuning);
  // Chunks are borrowed (src/http/response-body.ts): copied into one reused buffer, written
  // once per batch; a large chunk arriving with the buffer empty is written straight from it.
  const slab = Buffer.allocUnsafeSlow(tuning.batchBytes);
  let fill = 0;
  let closed = false;
  let lastFlushAt = Date.now();

  const flush = (): void => {
    lastFlushAt = Date.now();
    if (fill === 0) return;
    const length = fill;
    fill = 0;
    sink.writeAll(slab, length);
  };

  return {
    get bytes() {
      return sink.position + fill;
    },
    write(chunk) {
      hash.update(chunk);
      if (fill === 0 && chunk.length >= slab.length >>> 2) {
        lastFlushAt = Date.now();
        sink.writeAll(chunk, chunk.length);
        return;
      }
      for (let from = 0; from < chunk.length; ) {
        const n = Math.min(slab.length - fill, chunk.length - from);
        chunk.copy(slab, fill, from, from + n);
        fill += n;
        from += n;
        if (fill === slab.length) flush();
      }
      if (fill > 0 && Date.now() - lastFlushAt >= tuning.maxDelayMs) flush();
    },
    flush,
    close() {
      if (closed) return;
      closed = true;
      try {
        flush();
      } finally {
        sink.close();
      }
    },
    settled: () => sink.settled(),
    digest() {
      return hash.digest("hex");
    },
  };
}

/** The file side of a {@link HashingFileWriter}: positional writes and background syncs. */
interface FileSink {
  /** Bytes in the file so far (the kept part plus every write). */
  position: number;
  /** Writes `data[0, length)` at `position`; throws FileSystemError (exit 8). */
  writeAll(data: Buffer, length: number): void;
  /** Closes the fd once a queued background `fdatasync` returns. */
  close(): void;
  /** Waits for a queued background `fdatasync`; throws FileSystemError (exit 8) if it failed. */
  settled(): Promise<void>;
}

/**
 * Opens the fd of {@link openHashingWriter} (hashing the kept part into `hash` when resuming)
 * and wraps it with its background syncs. Throws FileSystemError (exit 8).
 */
function openSink(path: string, resumeFrom: number, hash: Hash, tuning: WriterTuning): FileSink {
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
  const sync = new BackgroundSync(
    fd,
    position,
    tuning.syncEveryBytes ?? SYNC_EVERY_BYTES,
    tuning.fs,
  );
  const sink: FileSink = {
    position,
    writeAll(data, length) {
      try {
        let done = 0;
        while (done < length) {
          done += writeSync(fd, data, done, length - done, sink.position + done);
        }
      } catch (err) {
        throw fsError(`cannot write ${path}`, err);
      }
      sink.position += length;
      sync.wrote(sink.position);
    },
    close: () => sync.close(),
    async settled() {
      try {
        await sync.settled();
      } catch (err) {
        throw fsError(`cannot write ${path}`, err);
      }
    },
  };
  return sink;
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
