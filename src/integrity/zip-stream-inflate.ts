import { crc32, createInflateRaw, type InflateRaw } from "node:zlib";
import { countInflated } from "./inflate-collector.js";

/** Bytes of inflated output per zlib call (one new buffer each: see src/integrity/inflate-collector.ts). */
const OUTPUT_CHUNK = 256 * 1024;

/** What an entry's deflate stream inflated to, once it ended (see {@link EntryInflater}). */
export interface Inflated {
  /** CRC-32 of the inflated bytes (unsigned). */
  crc32: number;
  /** Inflated bytes. */
  bytes: number;
  /** The deflate stream ended exactly at the last byte written, with no error. */
  endedExactly: boolean;
}

/**
 * Reusable copies of read-back blocks for the inflaters (the read-back lends its block only
 * until `update` settles): at most `count` blocks of `blockBytes`, so memory stays bounded
 * while several entries inflate at once on the thread pool. {@link take} waits for one to be
 * given back when all are out.
 */
export class CopyPool {
  readonly blockBytes: number;
  readonly #count: number;
  readonly #free: Buffer[] = [];
  readonly #waiting: (() => void)[] = [];
  #made = 0;

  constructor(blockBytes: number, count: number) {
    this.blockBytes = blockBytes;
    this.#count = count;
  }

  /** A free block (made while fewer than `count` exist, else the next one given back). */
  async take(): Promise<Buffer> {
    for (;;) {
      const block = this.#free.pop();
      if (block) return block;
      if (this.#made < this.#count) {
        this.#made += 1;
        return Buffer.allocUnsafeSlow(this.blockBytes);
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** Gives `block` back (once zlib is done with it). */
  give(block: Buffer): void {
    this.#free.push(block);
    this.#waiting.shift()?.();
  }
}

/**
 * Inflates one ZIP entry's deflate data as it is read back (node:zlib: the inflating runs on
 * libuv's thread pool, several entries at once) and keeps only the CRC-32 (`zlib.crc32`) and
 * the count of its output: each output chunk is consumed as it comes, nothing is queued.
 * Stops at the first error, or as soon as the output passes `limit` bytes (the size its header
 * records).
 */
export class EntryInflater {
  readonly #inflate: InflateRaw;
  readonly #limit: number;
  readonly #pool: CopyPool;
  readonly #closed: Promise<void>;
  #crc = 0;
  #bytes = 0;
  #written = 0;
  #failed = false;
  #ending = false;
  #ended = false;

  /** `limit`: the uncompressed size in bytes the entry's header records. */
  constructor(limit: number, pool: CopyPool) {
    this.#limit = limit;
    this.#pool = pool;
    const inflate = createInflateRaw({ chunkSize: OUTPUT_CHUNK });
    this.#inflate = inflate;
    inflate.on("data", (chunk: Buffer) => {
      this.#crc = crc32(chunk, this.#crc);
      this.#bytes += chunk.length;
      countInflated(chunk.length);
      if (this.#bytes > this.#limit) this.destroy();
    });
    inflate.once("end", () => {
      // an end before the input ended: the stream stopped short of the data's end
      if (this.#ending) this.#ended = true;
      else this.#failed = true;
    });
    inflate.on("error", () => {
      this.#failed = true;
    });
    this.#closed = new Promise<void>((resolve) => inflate.once("close", resolve));
  }

  /**
   * Copies `data` into pool blocks and hands them to zlib; resolves once copied (waiting for a
   * free block when all are out), so `data` may be reused right after. Each block goes back to
   * the pool when zlib is done with it.
   */
  async write(data: Buffer): Promise<void> {
    for (let at = 0; at < data.length && !this.#failed; ) {
      const block = await this.#pool.take();
      const n = data.copy(block, 0, at, at + Math.min(block.length, data.length - at));
      at += n;
      this.#written += n;
      let given = false;
      const giveBack = () => {
        if (given) return;
        given = true;
        this.#pool.give(block);
      };
      // zlib reads the block until the write's callback; a destroyed stream reads no more
      this.#closed.then(giveBack);
      this.#inflate.write(block.subarray(0, n), giveBack);
    }
  }

  /** Ends the input and resolves what it inflated to (once the stream closed). */
  async end(): Promise<Inflated> {
    this.#ending = true;
    if (!this.#failed) this.#inflate.end();
    await this.#closed;
    const endedExactly =
      !this.#failed && this.#ended && this.#inflate.bytesWritten === this.#written;
    return { crc32: this.#crc >>> 0, bytes: this.#bytes, endedExactly };
  }

  /** Stops: the stream is destroyed, the entry counts as failed. */
  destroy(): void {
    this.#failed = true;
    this.#inflate.destroy();
  }
}
