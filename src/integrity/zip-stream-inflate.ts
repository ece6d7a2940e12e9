import { crc32, createInflateRaw, type InflateRaw } from "node:zlib";

/** Bytes of inflated output per zlib call: small, so the garbage between two collections stays small. */
const OUTPUT_CHUNK = 64 * 1024;

/** What an entry's deflate stream inflated to, once it ended (see {@link EntryInflater}). */
export interface Inflated {
  /** CRC-32 of the inflated bytes. */
  crc32: number;
  /** Inflated bytes. */
  bytes: number;
  /** The deflate stream ended exactly at the last byte written, with no error. */
  endedExactly: boolean;
}

/**
 * Inflates one ZIP entry's deflate data as it is read back (node:zlib: the inflating runs on
 * libuv's thread pool) and keeps only the CRC-32 (`zlib.crc32`) and the count of its output:
 * each output chunk is consumed as it comes, nothing is queued. Stops at the first error, or as
 * soon as the output passes `limit` bytes (the size its header records).
 */
export class EntryInflater {
  readonly #inflate: InflateRaw;
  readonly #limit: number;
  readonly #over: Promise<void>;
  #crc = 0;
  #bytes = 0;
  #written = 0;
  #failed = false;
  #ending = false;
  #ended = false;

  /** `limit`: the uncompressed size in bytes the entry's header records. */
  constructor(limit: number) {
    this.#limit = limit;
    const inflate = createInflateRaw({ chunkSize: OUTPUT_CHUNK });
    this.#inflate = inflate;
    inflate.on("data", (chunk: Buffer) => {
      this.#crc = crc32(chunk, this.#crc);
      this.#bytes += chunk.length;
      if (this.#bytes > this.#limit) this.#fail();
    });
    this.#over = new Promise<void>((resolve) => {
      inflate.once("end", () => {
        // an end before we ended the input: the stream stopped short of the data's end
        if (this.#ending) this.#ended = true;
        else this.#failed = true;
        resolve();
      });
      inflate.once("close", resolve);
      inflate.once("error", () => {
        this.#failed = true;
        resolve();
      });
    });
  }

  /**
   * Inflates `data` (borrowed: not used after the promise resolves). Resolves true once zlib
   * took all of it, false when the entry failed (invalid data, too much output, an early end).
   */
  async write(data: Buffer): Promise<boolean> {
    if (this.#failed) return false;
    this.#written += data.length;
    await Promise.race([
      new Promise<void>((resolve) => this.#inflate.write(data, () => resolve())),
      this.#over,
    ]);
    return !this.#failed;
  }

  /** Ends the input and resolves what it inflated to (after the stream closed). */
  async end(): Promise<Inflated> {
    if (!this.#failed) {
      this.#ending = true;
      this.#inflate.end();
      await this.#over;
    }
    const endedExactly =
      !this.#failed && this.#ended && this.#inflate.bytesWritten === this.#written;
    this.#inflate.destroy();
    return { crc32: this.#crc >>> 0, bytes: this.#bytes, endedExactly };
  }

  /** Stops after a failure (the stream is destroyed; its output no longer counts). */
  #fail(): void {
    this.#failed = true;
    this.#inflate.destroy();
  }

  /** Drops the stream (the walk stopped). */
  destroy(): void {
    this.#fail();
  }
}
