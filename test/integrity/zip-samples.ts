import { crc32 } from "node:zlib";
import { buildZip, type RawZipEntry } from "../../src/mock-server/zip-builder.js";
import { archiveEnd, centralHeader, localHeader } from "../../src/mock-server/zip-records.js";

/** GLB-like bytes that deflate to about half: a pattern with noise. */
export function halfCompressible(size: number, seed: number): Buffer {
  const buf = Buffer.alloc(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    buf[i] = i % 2 === 0 ? x >>> 24 : i & 0xff;
  }
  return buf;
}

/** Stored, deflated, tiny and empty entries. */
export const MIXED: RawZipEntry[] = [
  { name: "models/rock.glb", data: halfCompressible(300_000, 1), method: 8 },
  { name: "textures/rock.png", data: halfCompressible(70_000, 2), method: 0 },
  { name: "README.txt", data: Buffer.from("hello\n"), method: 8 },
  { name: "empty/", data: Buffer.alloc(0), method: 0 },
  { name: "models/tree.glb", data: halfCompressible(200_000, 3), method: 8 },
];

/** A copy of `bytes` with the byte at `at` changed. */
export function flipped(bytes: Buffer, at: number, mask = 0x01): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] ?? 0) ^ mask;
  return copy;
}

/** Offsets of every local header of an archive built by buildZip from `entries`. */
export function localOffsets(zip: Buffer): number[] {
  const out: number[] = [];
  const cdSize = zip.readUInt32LE(zip.length - 22 + 12);
  const cdOffset = zip.readUInt32LE(zip.length - 22 + 16);
  for (let at = cdOffset; at < cdOffset + cdSize; ) {
    out.push(zip.readUInt32LE(at + 42));
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

/** An archive whose end records are ZIP64 (offsets in ZIP64 extra fields). */
export function zip64Archive(): Buffer {
  const data = Buffer.from("zip64 entry data");
  const fields = {
    name: Buffer.from("x.bin"),
    method: 0 as const,
    crc: crc32(data),
    csize: data.length,
    size: data.length,
  };
  const local = localHeader(fields, true);
  const central = centralHeader(fields, { offset: 0, mode: 0o100644 }, true);
  const cdOffset = local.length + data.length;
  const end = archiveEnd(
    { entries: 1, size: central.length, offset: cdOffset },
    cdOffset + central.length,
    true,
  );
  return Buffer.concat([local, data, central, ...end]);
}

/**
 * An archive of one stored entry whose local and central headers both give their sizes in a
 * ZIP64 extra field (the 32-bit fields hold 0xffffffff), as a writer that streams does.
 */
export function zip64SizesArchive(): Buffer {
  const data = halfCompressible(5000, 9);
  const name = Buffer.from("sized.bin");
  const sizes = Buffer.alloc(20);
  sizes.writeUInt16LE(0x0001, 0);
  sizes.writeUInt16LE(16, 2);
  sizes.writeBigUInt64LE(BigInt(data.length), 4);
  sizes.writeBigUInt64LE(BigInt(data.length), 12);
  const common = (buf: Buffer, at: number) => {
    buf.writeUInt16LE(0x0800, at);
    buf.writeUInt16LE(0, at + 2);
    buf.writeUInt32LE(crc32(data), at + 8);
    buf.writeUInt32LE(0xffffffff, at + 12);
    buf.writeUInt32LE(0xffffffff, at + 16);
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(45, 4);
  common(local, 6);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(sizes.length, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x032d, 4);
  central.writeUInt16LE(45, 6);
  common(central, 8);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt16LE(sizes.length, 30);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  const head = Buffer.concat([local, name, sizes]);
  const cd = Buffer.concat([central, name, sizes]);
  const cdOffset = head.length + data.length;
  const end = archiveEnd(
    { entries: 1, size: cd.length, offset: cdOffset },
    cdOffset + cd.length,
    false,
  );
  return Buffer.concat([head, data, cd, ...end]);
}

export { buildZip };
