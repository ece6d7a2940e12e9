import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import type { RandomAccessReader } from "yauzl";

/**
 * A yauzl RandomAccessReader over a FileHandle the caller owns: yauzl reads headers and the
 * central directory through it, and closing the ZipFile leaves the handle open (yauzl's own
 * fd reader would close the descriptor). `RandomAccessReaderClass` is yauzl's base class,
 * passed in because yauzl is imported lazily.
 */
export function handleReader(
  RandomAccessReaderClass: abstract new () => RandomAccessReader,
  file: FileHandle,
): RandomAccessReader {
  class HandleReader extends RandomAccessReaderClass {
    override read(
      buffer: Buffer,
      offset: number,
      length: number,
      position: number,
      callback: (err: Error | null) => void,
    ): void {
      readFully(file, buffer, offset, length, position).then(
        () => callback(null),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    override _readStreamForRange(start: number, end: number): Readable {
      return Readable.from(rangeBlocks(file, start, end));
    }

    override close(callback: (err: Error | null) => void): void {
      callback(null);
    }
  }
  return new HandleReader();
}

async function readFully(
  file: FileHandle,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, offset + done, length - done, position + done);
    if (bytesRead === 0) throw new Error("unexpected EOF");
    done += bytesRead;
  }
}

async function* rangeBlocks(file: FileHandle, start: number, end: number): AsyncGenerator<Buffer> {
  for (let at = start; at < end; ) {
    const block = Buffer.allocUnsafe(Math.min(1 << 20, end - at));
    await readFully(file, block, 0, block.length, at);
    at += block.length;
    yield block;
  }
}
