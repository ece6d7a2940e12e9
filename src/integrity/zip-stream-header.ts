import type { LocalFileHeader, RandomAccessReader, ZipFile } from "yauzl";
import type { Yauzl } from "./zip-check.js";

/** The longest local header: 30 fixed bytes, a name and an extra field of up to 65,535 bytes each. */
const MAX_HEADER = 30 + 0xffff + 0xffff;
/** Fixed part of a local header (APPNOTE 4.3.7). */
const FIXED_HEADER = 30;

/** yauzl asked for bytes past those gathered so far: gather up to `needed`, then parse again. */
class NeedMore extends Error {
  constructor(readonly needed: number) {
    super("more header bytes needed");
  }
}

/** What parsing the gathered bytes gave: a header, a need for more bytes, or not a local header. */
export type HeaderStep = { header: LocalFileHeader } | { needed: number } | { notHeader: string };

/**
 * Gathers the bytes of one local file header as they pass in the read-back and parses them
 * with yauzl (`ZipFile.readLocalFileHeader` through a RandomAccessReader backed by the gathered
 * bytes, never a hand-written parser): first the fixed 30 bytes, then exactly the name and extra
 * field that yauzl asks for, so no data byte is ever taken. Memory: one buffer that grows to the
 * longest header seen (at most 128 KiB).
 */
export class LocalHeaderGatherer {
  readonly #yauzl: Yauzl;
  readonly #zip: ZipFile;
  #bytes = Buffer.alloc(1024);
  #length = 0;
  #needed = FIXED_HEADER;
  /** Offset in the file of the header's first byte. */
  #start = 0;

  constructor(yauzl: Yauzl) {
    this.#yauzl = yauzl;
    const reader = gatheredReader(yauzl, () => ({
      start: this.#start,
      bytes: this.#bytes.subarray(0, this.#length),
    }));
    (reader as unknown as { ref(): void }).ref(); // held for good: nothing to close
    this.#zip = new yauzl.ZipFile(
      reader,
      0,
      Number.MAX_SAFE_INTEGER,
      0,
      "",
      false,
      true,
      false,
      false,
    );
  }

  /** Starts a new header at file offset `start` (drops what was gathered). */
  restart(start: number): void {
    this.#start = start;
    this.#length = 0;
    this.#needed = FIXED_HEADER;
  }

  /** Offset in the file of the header being gathered. */
  get start(): number {
    return this.#start;
  }

  /** Takes from `bytes` what the header still needs; returns how many bytes it took. */
  take(bytes: Buffer): number {
    const n = Math.min(bytes.length, this.#needed - this.#length);
    if (this.#length + n > this.#bytes.length) {
      const grown = Buffer.alloc(
        Math.min(MAX_HEADER, Math.max(this.#needed, this.#bytes.length * 2)),
      );
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    bytes.copy(this.#bytes, this.#length, 0, n);
    this.#length += n;
    return n;
  }

  /** True once every byte asked for so far was gathered (time to {@link parse}). */
  get full(): boolean {
    return this.#length >= this.#needed;
  }

  /** Parses the gathered bytes (after {@link full}). */
  async parse(): Promise<HeaderStep> {
    const entry = new this.#yauzl.Entry();
    entry.relativeOffsetOfLocalHeader = this.#start;
    entry.compressedSize = 0;
    try {
      const header = await this.#zip.readLocalFileHeaderPromise(entry);
      return { header };
    } catch (err) {
      if (err instanceof NeedMore && err.needed <= MAX_HEADER) {
        this.#needed = err.needed;
        return { needed: err.needed };
      }
      return { notHeader: err instanceof Error ? err.message : String(err) };
    }
  }
}

/**
 * A yauzl RandomAccessReader over the bytes gathered so far (`view()`: the file offset of the
 * first one, and the bytes): a read past them fails with {@link NeedMore}.
 */
function gatheredReader(
  yauzl: Yauzl,
  view: () => { start: number; bytes: Buffer },
): RandomAccessReader {
  class GatheredBytes extends yauzl.RandomAccessReader {
    override read(
      buffer: Buffer,
      offset: number,
      length: number,
      position: number,
      callback: (err: Error | null) => void,
    ): void {
      const { start, bytes } = view();
      const from = position - start;
      if (from < 0) callback(new Error("read before the header"));
      else if (from + length > bytes.length) callback(new NeedMore(from + length));
      else {
        bytes.copy(buffer, offset, from, from + length);
        callback(null);
      }
    }

    override close(callback: (err: Error | null) => void): void {
      callback(null);
    }
  }
  return new GatheredBytes();
}
