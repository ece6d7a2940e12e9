import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { BackgroundSync, type DurableFs, SYNC_EVERY_BYTES } from "../io/durable.js";
import { spaceFacts } from "../io/free-space.js";
import { followFile, type ReadBack, type ReadBackConsumer } from "./read-back.js";

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
  /** Further readers of the file as read back (src/download/read-back.ts), e.g. a format check. */
  consumers?: readonly ReadBackConsumer[];
}

/** Default {@link WriterTuning}. */
export const DEFAULT_TUNING: WriterTuning = {
  batchBytes: 1 << 20,
  maxDelayMs: 500,
};

/**
 * A file being written by the download core, with the SHA-256 of its bytes as read back from the
 * file ({@link followFile}: just behind the writer, never from a buffer the receiving side may
 * reuse). Body chunks are borrowed views (the fast path's reused read buffer): each is gathered
 * at once in one reused buffer, written with one `writeSync` per MiB on a raw fd
 * (docs/performance.md). The buffer can be lent to the socket ({@link lend}): a read that lands
 * where it was lent is gathered without a copy. Any other chunk is copied, or, a chunk of
 * 256 KiB or more that finds the buffer empty, written straight from the view. Because
 * `write()` returns only after the bytes are in the file or the buffer, a data callback that
 * calls it never buffers more than one batch.
 */
export interface HashingFileWriter {
  /** Gathers `chunk` (copied; never kept). Throws FileSystemError (exit 8) on write failure. */
  write(chunk: Buffer): void;
  /**
   * The free part of the gather buffer (at least one batch long), for the next socket read to
   * land in: a {@link write} of a view that starts there takes it without copying. Until that
   * write comes, nothing else is put in the lent part (other chunks are written out directly).
   */
  lend(): Buffer;
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
  /**
   * Lower-case hex SHA-256 of the file as read back to its end (call once, after `close` and
   * after the file was flushed to the disk). Rejects with FileSystemError (exit 8) on a read
   * error or when the file does not hold exactly {@link bytes} bytes (it changed under us), or
   * with a read-back consumer's error.
   */
  digest(): Promise<string>;
  /** Bytes in the file: the existing part plus everything written or gathered. */
  readonly bytes: number;
}

/**
 * Opens `path` for a download. With `resumeFrom` > 0 the file's first `resumeFrom` bytes are
 * kept (anything after them is cut off) and new bytes are appended; with 0 the file is
 * truncated. The file is read back from offset 0 (kept part included) as it grows.
 * Throws FileSystemError `write_failed` / `no_space` / `permission_denied` (exit 8).
 */
export function openHashingWriter(
  path: string,
  resumeFrom: number,
  tuning: WriterTuning = DEFAULT_TUNING,
): HashingFileWriter {
  const readBack = followFile(path, tuning.consumers);
  return new GatheringWriter(readBack, openSink(path, resumeFrom, readBack, tuning), tuning);
}

/**
 * {@link HashingFileWriter} over a {@link FileSink}. Chunks are borrowed
 * (src/http/response-body.ts): gathered in one reused buffer twice a batch long (so a lent
 * part is always a whole batch), written once per batch.
 */
class GatheringWriter implements HashingFileWriter {
  readonly #readBack: ReadBack;
  readonly #sink: FileSink;
  readonly #batch: number;
  readonly #maxDelayMs: number;
  readonly #slab: Buffer;
  #fill = 0;
  /** Where the part lent to the socket starts, -1 when none is lent. */
  #lentAt = -1;
  #closed = false;
  #lastFlushAt = Date.now();

  constructor(readBack: ReadBack, sink: FileSink, tuning: WriterTuning) {
    this.#readBack = readBack;
    this.#sink = sink;
    this.#batch = tuning.batchBytes;
    this.#maxDelayMs = tuning.maxDelayMs;
    this.#slab = Buffer.allocUnsafeSlow(tuning.batchBytes * 2);
  }

  get bytes(): number {
    return this.#sink.position + this.#fill;
  }

  write(chunk: Buffer): void {
    const slab = this.#slab;
    if (this.#lentAt >= 0) {
      if (
        this.#lentAt === this.#fill &&
        chunk.buffer === slab.buffer &&
        chunk.byteOffset === slab.byteOffset + this.#lentAt
      ) {
        this.#lentAt = -1; // the read landed where it was lent: nothing to copy
        this.#fill += chunk.length;
        if (this.#fill >= this.#batch) this.flush();
        else this.#flushIfLate();
        return;
      }
      // A read may still land in the lent part: never copy into it.
      this.flush();
      this.#sink.writeAll(chunk, chunk.length);
      return;
    }
    if (this.#fill === 0 && chunk.length >= this.#batch >>> 2) {
      this.#lastFlushAt = Date.now();
      this.#sink.writeAll(chunk, chunk.length);
      return;
    }
    for (let from = 0; from < chunk.length; ) {
      const n = Math.min(this.#batch - this.#fill, chunk.length - from);
      chunk.copy(slab, this.#fill, from, from + n);
      this.#fill += n;
      from += n;
      if (this.#fill === this.#batch) this.flush();
    }
    this.#flushIfLate();
  }

  lend(): Buffer {
    this.#lentAt = this.#fill;
    return this.#slab.subarray(this.#fill, this.#fill + this.#batch);
  }

  flush(): void {
    this.#lastFlushAt = Date.now();
    if (this.#fill === 0) return;
    const length = this.#fill;
    this.#fill = 0;
    this.#sink.writeAll(this.#slab, length);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.flush();
    } finally {
      this.#sink.close();
      this.#readBack.writerClosed();
    }
  }

  settled(): Promise<void> {
    return this.#sink.settled();
  }

  async digest(): Promise<string> {
    const read = await this.#readBack.finish();
    if (read.bytes !== this.bytes) {
      throw new FileSystemError(
        `the part file holds ${read.bytes} bytes where ${this.bytes} were written (it changed during the download)`,
        { code: "write_failed", detail: { restart: true } },
      );
    }
    return read.sha256;
  }

  /** Gathered bytes do not wait longer than `maxDelayMs` on a slow connection. */
  #flushIfLate(): void {
    if (this.#fill > 0 && Date.now() - this.#lastFlushAt >= this.#maxDelayMs) this.flush();
  }
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
 * Opens the fd of {@link openHashingWriter} (keeping at most `resumeFrom` bytes) and wraps it
 * with its background syncs; tells `readBack` how far the file is written. Throws
 * FileSystemError (exit 8).
 */
function openSink(
  path: string,
  resumeFrom: number,
  readBack: ReadBack,
  tuning: WriterTuning,
): FileSink {
  let fd: number;
  try {
    fd = openSync(path, resumeFrom > 0 ? "r+" : "w");
  } catch (err) {
    throw fsError(`cannot open ${path}`, err);
  }
  let position = 0;
  if (resumeFrom > 0) {
    try {
      position = keepExisting(fd, resumeFrom);
    } catch (err) {
      closeSync(fd);
      throw fsError(`cannot read ${path}`, err);
    }
  }
  readBack.advance(position);
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
          const n = writeSync(fd, data, done, length - done, sink.position + done);
          // a device that takes nothing and reports no error: fail, never spin on it
          if (n <= 0) throw Object.assign(new Error("the write wrote 0 bytes"), { code: "EIO" });
          done += n;
        }
      } catch (err) {
        throw fsError(`cannot write ${path}`, err, spaceFacts(err, path, sink.position));
      }
      sink.position += length;
      sync.wrote(sink.position);
      readBack.advance(sink.position);
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

/** Keeps the first `length` bytes of `fd` (cuts off any after them); returns the bytes kept (≤ length). */
function keepExisting(fd: number, length: number): number {
  const size = fstatSync(fd).size;
  if (size > length) ftruncateSync(fd, length);
  return Math.min(size, length);
}
