import { createHash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { fsError } from "../errors/fs-error.js";
import type { FileDigest } from "../io/file-hash.js";
import { READ_NO_FOLLOW } from "../io/safe-fs.js";

/**
 * A second reader of a file being downloaded: gets every block of the file as read back from
 * the disk, in order from offset 0, exactly once. A ZIP or GLB check that reads the file
 * sequentially can be one, so the file is read once for both (pass it to
 * `openHashingWriter`, src/download/writer.ts).
 */
export interface ReadBackConsumer {
  /**
   * One block of the file at `offset` (offsets follow each other, from 0). Borrowed: valid
   * during the call, or until the promise it returns settles (copy what you keep). A promise
   * holds the read-back (the next block is read once it settles; the writer never waits: the
   * read-back falls behind and reads the page cache later). Throwing or rejecting stops the
   * read-back: `finish` rejects with that error.
   */
  update(block: Buffer, offset: number): void | Promise<void>;
}

/** A file read back behind its writer: see {@link followFile}. */
export interface ReadBack {
  /** The writer has put bytes up to `position` in the file: read them back in the background. */
  advance(position: number): void;
  /** The writer is done: read what is left in the background, then close the file. */
  writerClosed(): void;
  /**
   * Reads the file to its end (after the writer closed it) and resolves its SHA-256 and size:
   * every byte hashed as read from the file, never from a buffer of the receiving side.
   * Rejects with FileSystemError (exit 8) on a read error, or a consumer's error.
   */
  finish(): Promise<FileDigest>;
}

/** Bytes read back at a time (one reused buffer: memory stays constant). */
const BLOCK_BYTES = 1 << 20;

/**
 * Follows the writer of `path` (cli-contract "Integrity": the SHA-256 recorded is computed from
 * the bytes of the file as written to disk, never from a buffer that the receiving side may
 * still reuse). Reads with asynchronous positional reads on its own descriptor (opened without
 * following a symlink), just behind the writer, so the bytes come from the page cache and the
 * reads run on the thread pool while the socket keeps receiving. The descriptor is closed once
 * the writer closed and everything was read; a read-back nobody finishes (a failed attempt)
 * closes it all the same. Errors are kept for {@link ReadBack.finish}.
 */
export function followFile(path: string, consumers: readonly ReadBackConsumer[] = []): ReadBack {
  return new FileFollower(path, consumers);
}

class FileFollower implements ReadBack {
  readonly #path: string;
  readonly #consumers: readonly ReadBackConsumer[];
  readonly #hash = createHash("sha256");
  #block: Buffer | undefined;
  #handle: FileHandle | undefined;
  /** Bytes read back and hashed so far. */
  #done = 0;
  /** Bytes the writer has put in the file so far. */
  #target = 0;
  #closed = false;
  #toEnd = false;
  /** A read asked to go to the end found it. */
  #atEnd = false;
  #error: unknown;
  #pump: Promise<void> | undefined;
  #running = false;

  constructor(path: string, consumers: readonly ReadBackConsumer[]) {
    this.#path = path;
    this.#consumers = consumers;
  }

  advance(position: number): void {
    if (position <= this.#target) return;
    this.#target = position;
    this.#run();
  }

  writerClosed(): void {
    this.#closed = true;
    this.#run();
  }

  async finish(): Promise<FileDigest> {
    this.#closed = true;
    this.#toEnd = true;
    while (this.#error === undefined && !this.#atEnd) {
      this.#run();
      await this.#pump;
    }
    if (this.#error !== undefined) throw this.#error;
    return { sha256: this.#hash.digest("hex"), bytes: this.#done };
  }

  /** Starts the read loop unless it runs (it picks up the new target itself). */
  #run(): void {
    if (this.#running) return;
    this.#running = true;
    this.#pump = this.#readAll();
  }

  /** Reads until caught up (or to the end); closes the file once the writer is done. */
  async #readAll(): Promise<void> {
    try {
      while (this.#error === undefined && (this.#toEnd || this.#done < this.#target)) {
        if ((await this.#read()) === 0) {
          this.#atEnd = this.#toEnd;
          break;
        }
      }
    } catch (err) {
      this.#error = isSystemError(err) ? fsError(`cannot read ${this.#path}`, err) : err;
    }
    if (this.#closed || this.#error !== undefined) await this.#close();
    this.#running = false; // after the last await: a later #run starts a new loop
  }

  /** Reads the next block (up to the target, or to the end of the file); returns its length. */
  async #read(): Promise<number> {
    this.#handle ??= await open(this.#path, READ_NO_FOLLOW);
    this.#block ??= Buffer.allocUnsafeSlow(BLOCK_BYTES);
    const want = this.#toEnd ? BLOCK_BYTES : Math.min(BLOCK_BYTES, this.#target - this.#done);
    const { bytesRead } = await this.#handle.read(this.#block, 0, want, this.#done);
    if (bytesRead === 0) return 0;
    const block = this.#block.subarray(0, bytesRead);
    this.#hash.update(block);
    for (const consumer of this.#consumers) await consumer.update(block, this.#done);
    this.#done += bytesRead;
    return bytesRead;
  }

  async #close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#block = undefined;
    await handle?.close().catch(() => undefined);
  }
}

/** An error of a system call (it names one), as opposed to a consumer's own error. */
function isSystemError(err: unknown): boolean {
  return typeof (err as { syscall?: unknown } | undefined)?.syscall === "string";
}
