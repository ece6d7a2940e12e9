/**
 * The fixed records of a ZIP archive (APPNOTE 4.3.7, 4.3.12, 4.3.14-4.3.16) shared by the mock's
 * two archive writers: zip.ts (pack files of any size, streamed from a layout, ZIP64 at 4 GiB)
 * and zip-builder.ts (small special archives built in memory). Names are stored as UTF-8
 * (flag 0x0800); every entry carries the same DOS time stamp so the bytes stay deterministic.
 */

const DOS_TIME = 12 << 11; // 12:00:00
const DOS_DATE = ((2024 - 1980) << 9) | (6 << 5) | 1; // 2024-06-01
/** The largest 32-bit field value, also the ZIP64 "see the extra field" marker. */
export const U32_MAX = 0xffffffff;
/** "Version needed to extract": 2.0 (deflate), or 4.5 with ZIP64. */
const version = (zip64: boolean) => (zip64 ? 45 : 20);

/** What the local and central headers of one entry both say. */
export interface ZipEntryFields {
  name: Buffer;
  /** General purpose bits besides the UTF-8 flag (0x0001: encrypted). */
  flags?: number;
  /** 0 stored, 8 deflate. */
  method: 0 | 8;
  crc: number;
  /** Compressed size (= size when stored). */
  csize: number;
  /** Uncompressed size as declared. */
  size: number;
}

/** The local file header, name included (4.3.7). */
export function localHeader(e: ZipEntryFields, zip64: boolean): Buffer {
  const lh = Buffer.alloc(30 + e.name.length);
  lh.writeUInt32LE(0x04034b50, 0);
  lh.writeUInt16LE(version(zip64), 4);
  writeCommon(lh, 6, e);
  lh.writeUInt16LE(e.name.length, 26);
  lh.writeUInt16LE(0, 28);
  e.name.copy(lh, 30);
  return lh;
}

/**
 * The central directory header, name included (4.3.12); with `zip64` the offset moves to a
 * ZIP64 extra field. `mode` is the unix mode of the external attributes.
 */
export function centralHeader(
  e: ZipEntryFields,
  at: { offset: number; mode: number },
  zip64: boolean,
): Buffer {
  const extraLen = zip64 ? 12 : 0;
  const ch = Buffer.alloc(46 + e.name.length + extraLen);
  ch.writeUInt32LE(0x02014b50, 0);
  ch.writeUInt16LE(0x0300 | version(zip64), 4); // made by: Unix
  ch.writeUInt16LE(version(zip64), 6);
  writeCommon(ch, 8, e);
  ch.writeUInt16LE(e.name.length, 28);
  ch.writeUInt16LE(extraLen, 30);
  // comment length, disk, internal attributes: 0
  ch.writeUInt32LE((at.mode << 16) >>> 0, 38);
  ch.writeUInt32LE(zip64 ? U32_MAX : at.offset, 42);
  e.name.copy(ch, 46);
  if (zip64) {
    const x = 46 + e.name.length;
    ch.writeUInt16LE(0x0001, x);
    ch.writeUInt16LE(8, x + 2);
    ch.writeBigUInt64LE(BigInt(at.offset), x + 4);
  }
  return ch;
}

/** Flags, method, time, date, CRC and both sizes: the run both headers share. */
function writeCommon(buf: Buffer, at: number, e: ZipEntryFields): void {
  buf.writeUInt16LE(0x0800 | (e.flags ?? 0), at);
  buf.writeUInt16LE(e.method, at + 2);
  buf.writeUInt16LE(DOS_TIME, at + 4);
  buf.writeUInt16LE(DOS_DATE, at + 6);
  buf.writeUInt32LE(e.crc, at + 8);
  buf.writeUInt32LE(e.csize, at + 12);
  buf.writeUInt32LE(e.size, at + 16);
}

/** Where the central directory is: entry count, its size and its offset, in bytes. */
export interface CentralDirectory {
  entries: number;
  size: number;
  offset: number;
}

/**
 * The end of the archive: with `zip64` the ZIP64 end record and its locator (4.3.14, 4.3.15)
 * before the end of central directory record (4.3.16), whose fields then hold the markers.
 * `end` is the offset where these records start.
 */
export function archiveEnd(cd: CentralDirectory, end: number, zip64: boolean): Buffer[] {
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(zip64 ? 0xffff : cd.entries, 8);
  eocd.writeUInt16LE(zip64 ? 0xffff : cd.entries, 10);
  eocd.writeUInt32LE(zip64 ? U32_MAX : cd.size, 12);
  eocd.writeUInt32LE(zip64 ? U32_MAX : cd.offset, 16);
  if (!zip64) return [eocd];
  const rec = Buffer.alloc(56 + 20);
  rec.writeUInt32LE(0x06064b50, 0);
  rec.writeBigUInt64LE(44n, 4);
  rec.writeUInt16LE(0x032d, 12);
  rec.writeUInt16LE(45, 14);
  rec.writeBigUInt64LE(BigInt(cd.entries), 24);
  rec.writeBigUInt64LE(BigInt(cd.entries), 32);
  rec.writeBigUInt64LE(BigInt(cd.size), 40);
  rec.writeBigUInt64LE(BigInt(cd.offset), 48);
  rec.writeUInt32LE(0x07064b50, 56);
  rec.writeBigUInt64LE(BigInt(end), 64);
  rec.writeUInt32LE(1, 72);
  return [rec, eocd];
}
