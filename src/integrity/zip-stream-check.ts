import { crc32 } from "node:zlib";
import type { LocalFileHeader } from "yauzl";
import { DATA_DESCRIPTOR_FLAG, ENCRYPTED_FLAG, localSizes } from "./local-header.js";
import type { Yauzl } from "./zip-check.js";
import { LocalHeaderGatherer } from "./zip-stream-header.js";
import { CopyPool, EntryInflater } from "./zip-stream-inflate.js";
import { type FormatVerdict, settleWalk, type WalkedEntry } from "./zip-stream-verdict.js";

export type { FormatVerdict, WalkedEntry } from "./zip-stream-verdict.js";

/**
 * Copies of read-back blocks in zlib's hands at most (8 × 1 MiB): entries inflate on the
 * thread pool while the read-back goes on, with memory bounded (docs/performance.md "The
 * format check" has the measurements).
 */
const COPY_BLOCKS = 8;
const COPY_BLOCK_BYTES = 1 << 20;
/** Entries inflating at once at most (each holds a zlib stream and its window). */
const MAX_INFLATING = 4;

/** The entry whose data is passing: where it is, and its running CRC-32 or inflater. */
interface OpenEntry {
  walked: WalkedEntry;
  /** Data bytes still to come. */
  remaining: number;
  /** Deflated data (unless encrypted) goes through this. */
  inflater: EntryInflater | undefined;
}

/**
 * A ZIP check that runs as the file is read back during its download (a `ReadBackConsumer` of
 * src/download/read-back.ts): walks the local headers in file order from offset 0 (each parsed
 * by yauzl: {@link LocalHeaderGatherer}), takes the CRC-32 of a stored entry's data as its
 * blocks pass (`zlib.crc32`) and inflates a deflated entry's (node:zlib, on the thread pool:
 * `update` returns a promise while the inflater works, so the read-back waits and memory stays
 * constant), and records per entry what it saw ({@link WalkedEntry}). A data descriptor, a
 * method other than stored or deflate, ZIP64 sizes that are missing, or anything unexpected
 * stops the walk: the verdict is then `unsure`. Never throws at the read-back. After the last
 * block, {@link settle} compares the walk with the central directory.
 */
export class ZipStreamCheck {
  readonly #walked: WalkedEntry[] = [];
  readonly #maxEntries: number;
  #yauzl: Yauzl | undefined;
  #header: LocalHeaderGatherer | undefined;
  #entry: OpenEntry | undefined;
  /** Deflated entries whose data was all handed to zlib, still inflating (in file order). */
  readonly #inflating: Promise<void>[] = [];
  /** Every deflated entry's end (settle waits for all). */
  readonly #done: Promise<void>[] = [];
  #pool: CopyPool | undefined;
  /** File offset of the next byte expected. */
  #at = 0;
  /** The walk failed: the verdict is `unsure`. */
  #stopped = false;
  /** The walk reached bytes that are not a local header (the central directory, normally). */
  #ended = false;

  /**
   * `maxEntries`: entries the walk records at most (each holds its local header); an archive
   * with more is `unsure` and left to `findDamage`. Default 100,000.
   */
  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  /**
   * The block of the file at `offset` (borrowed until the promise settles; offsets follow each
   * other from 0, else the walk stops). Resolves once the block was taken (inflated, for a
   * deflated entry). Never rejects.
   */
  async update(block: Buffer, offset: number): Promise<void> {
    if (this.#stopped || this.#ended) return;
    if (offset !== this.#at) return this.#stop();
    this.#at += block.length;
    try {
      let rest = block;
      let position = offset;
      while (rest.length > 0 && !this.#stopped && !this.#ended) {
        const taken = this.#entry
          ? await this.#takeData(this.#entry, rest)
          : await this.#takeHeader(rest, position);
        rest = rest.subarray(taken);
        position += taken;
      }
    } catch {
      this.#stop();
    }
  }

  /**
   * After the read-back read the whole file at `path`: compares the walk with the archive's
   * central directory (read with yauzl from the file: only the end records and the directory).
   * Never throws: any failure is `unsure`.
   */
  async settle(path: string): Promise<FormatVerdict> {
    if (this.#stopped || this.#entry !== undefined) return this.#drop();
    return await settleWalk(path, await this.inflated());
  }

  /** The entries walked so far, in file order, once every deflated one finished inflating. */
  async inflated(): Promise<readonly WalkedEntry[]> {
    await Promise.all(this.#done);
    return this.#walked;
  }

  /** Drops the walk (its attempt failed): the inflating stops, the verdict is `unsure`. */
  abandon(): void {
    this.#stop();
  }

  async #takeHeader(bytes: Buffer, position: number): Promise<number> {
    if (this.#header === undefined) {
      // `.default`: module.exports of this CommonJS package, also in the CLI bundle
      this.#yauzl ??= (await import("yauzl")).default;
      this.#header = new LocalHeaderGatherer(this.#yauzl);
      this.#header.restart(position);
    }
    const gatherer = this.#header;
    const taken = gatherer.take(bytes);
    if (!gatherer.full) return taken;
    const step = await gatherer.parse();
    if ("needed" in step) return taken;
    // not a local header: the central directory (or damage, which settle finds)
    if ("notHeader" in step) this.#ended = true;
    else await this.#open(step.header, gatherer.start);
    return taken;
  }

  async #open(header: LocalFileHeader, offset: number): Promise<void> {
    const yauzl = this.#yauzl;
    const sizes = yauzl && localSizes(header, yauzl.parseExtraFields);
    const method = header.compressionMethod;
    const flags = header.generalPurposeBitFlag;
    const unusual = (flags & DATA_DESCRIPTOR_FLAG) !== 0 || (method !== 0 && method !== 8);
    if (!sizes || unusual || this.#walked.length >= this.#maxEntries) return this.#stop();
    const encrypted = (flags & ENCRYPTED_FLAG) !== 0;
    const walked: WalkedEntry = {
      offset,
      header,
      dataStart: header.fileDataStart,
      compressedBytes: 0,
      uncompressedBytes: 0,
      crc32: 0,
      checked: !encrypted,
      endedExactly: method === 0,
    };
    let inflater: EntryInflater | undefined;
    if (method === 8 && !encrypted) {
      // a bounded number of zlib streams: wait for the oldest still inflating
      while (this.#inflating.length >= MAX_INFLATING) await this.#inflating.shift();
      this.#pool ??= new CopyPool(COPY_BLOCK_BYTES, COPY_BLOCKS);
      inflater = new EntryInflater(sizes.uncompressed, this.#pool);
    }
    this.#entry = { walked, remaining: sizes.compressed, inflater };
    if (sizes.compressed === 0) await this.#closeEntry(this.#entry);
  }

  async #takeData(entry: OpenEntry, bytes: Buffer): Promise<number> {
    const n = Math.min(entry.remaining, bytes.length);
    const piece = bytes.subarray(0, n);
    const { walked } = entry;
    walked.compressedBytes += n;
    entry.remaining -= n;
    if (entry.inflater) {
      await entry.inflater.write(piece);
    } else if (walked.checked) {
      walked.crc32 = crc32(piece, walked.crc32);
      walked.uncompressedBytes += n;
    }
    if (entry.remaining === 0) await this.#closeEntry(entry);
    return n;
  }

  async #closeEntry(entry: OpenEntry): Promise<void> {
    const { walked, inflater } = entry;
    if (inflater) {
      // the walk goes on while zlib finishes: settle waits for every entry
      const done = inflater.end().then((inflated) => {
        walked.crc32 = inflated.crc32;
        walked.uncompressedBytes = inflated.bytes;
        walked.endedExactly = inflated.endedExactly;
      });
      this.#inflating.push(done);
      this.#done.push(done);
    }
    walked.crc32 >>>= 0;
    this.#walked.push(walked);
    this.#entry = undefined;
    this.#header?.restart(walked.dataStart + walked.compressedBytes);
  }

  #stop(): void {
    this.#stopped = true;
    this.#entry?.inflater?.destroy();
    this.#entry = undefined;
  }

  #drop(): FormatVerdict {
    this.#stop();
    return "unsure";
  }
}
