import { once } from "node:events";
import type { FileHandle } from "node:fs/promises";
import { crc32, createInflateRaw } from "node:zlib";
import { hex } from "./damage.js";
import { countInflated } from "./inflate-collector.js";

/** Bytes read from the file at a time. */
const READ_BLOCK = 1 << 20;

/** Where one entry's data lies and what its central record says about it. */
export interface EntryData {
  /** Offset of the first data byte (after the local header). */
  start: number;
  compressedSize: number;
  /** Recorded uncompressed size in bytes. */
  uncompressedSize: number;
  /** Deflate (method 8); else stored. */
  deflated: boolean;
  /** Recorded CRC-32 of the uncompressed bytes. */
  crc32: number;
  signal?: AbortSignal | undefined;
}

/** Running CRC-32 and byte count of an entry's uncompressed data. */
interface Tally {
  crc: number;
  bytes: number;
}

/**
 * Reads one ZIP entry's data from `file` (cli-contract "Integrity"), inflates it when deflated
 * (zlib; stops as soon as more bytes come out than recorded), and compares its size and CRC-32
 * with the record. Returns a short reason when they differ or the deflate stream is invalid or
 * cut short, else undefined. Throws `signal.reason` when aborted, and read errors.
 */
export async function checkEntryData(
  file: FileHandle,
  data: EntryData,
): Promise<string | undefined> {
  const tally: Tally = { crc: 0, bytes: 0 };
  const problem = data.deflated
    ? await inflateInto(file, data, tally)
    : await readStored(file, data, tally);
  if (problem) return problem;
  if (tally.bytes !== data.uncompressedSize) {
    return `data is ${tally.bytes} bytes, the archive records ${data.uncompressedSize}`;
  }
  if (tally.crc >>> 0 !== data.crc32 >>> 0) {
    return `CRC-32 of the data is ${hex(tally.crc)}, the archive records ${hex(data.crc32)}`;
  }
  return undefined;
}

async function readStored(
  file: FileHandle,
  data: EntryData,
  tally: Tally,
): Promise<string | undefined> {
  const block = Buffer.allocUnsafe(Math.min(READ_BLOCK, Math.max(1, data.compressedSize)));
  for (let done = 0; done < data.compressedSize; ) {
    data.signal?.throwIfAborted();
    const want = Math.min(block.length, data.compressedSize - done);
    const { bytesRead } = await file.read(block, 0, want, data.start + done);
    if (bytesRead === 0) return `data ends early, at byte ${data.start + done}`;
    tally.crc = crc32(block.subarray(0, bytesRead), tally.crc);
    tally.bytes += bytesRead;
    done += bytesRead;
  }
  return undefined;
}

async function inflateInto(
  file: FileHandle,
  data: EntryData,
  tally: Tally,
): Promise<string | undefined> {
  const inflate = createInflateRaw({ chunkSize: 256 * 1024 });
  let failure: string | undefined;
  inflate.on("data", (chunk: Buffer) => {
    tally.crc = crc32(chunk, tally.crc);
    tally.bytes += chunk.length;
    countInflated(chunk.length);
    if (tally.bytes > data.uncompressedSize && failure === undefined) {
      failure = `inflates to more than the recorded ${data.uncompressedSize} bytes`;
      inflate.destroy();
    }
  });
  const finished = new Promise<void>((resolve) => {
    inflate.once("end", resolve);
    inflate.once("close", resolve);
    inflate.once("error", (err: Error) => {
      failure ??= `deflate data is invalid (${err.message})`;
      resolve();
    });
  });
  try {
    for (let done = 0; done < data.compressedSize && failure === undefined; ) {
      data.signal?.throwIfAborted();
      // the inflater holds on to a block until it has consumed it: a fresh buffer each time
      const block = Buffer.allocUnsafe(Math.min(READ_BLOCK, data.compressedSize - done));
      const { bytesRead } = await file.read(block, 0, block.length, data.start + done);
      if (bytesRead === 0) return `data ends early, at byte ${data.start + done}`;
      done += bytesRead;
      if (!inflate.write(block.subarray(0, bytesRead))) {
        await Promise.race([once(inflate, "drain"), finished]);
      }
    }
    if (failure === undefined) inflate.end();
    await finished;
    return failure;
  } finally {
    inflate.destroy();
  }
}
