/**
 * A small in-memory ZIP writer for the mock's special archives (hostile ones for the
 * `hostileArchive` fault, and test fixtures): stored or deflated entries, any name bytes, any
 * unix mode, and optionally a declared uncompressed size that lies. Not for large files.
 */
import { crc32, deflateRawSync } from "node:zlib";

/** One entry to write. */
export interface RawZipEntry {
  /** The name exactly as stored (UTF-8 flag set); may be hostile (`../x`, `/etc/x`, `C:\\x`). */
  name: string;
  /** Uncompressed bytes (empty for a folder entry `name/`). */
  data?: Buffer;
  /** 0 stored, 8 deflate (default 8 when there are bytes). */
  method?: 0 | 8;
  /** Unix mode for the external attributes, e.g. `0o100644`, `0o120777` (symlink). Default file/dir. */
  mode?: number;
  /** Uncompressed size to declare instead of the true one (a lying header). */
  declaredSize?: number;
  /** General purpose bits added to the UTF-8 flag, e.g. `0x0001` (encrypted). */
  flags?: number;
}

const DOS_TIME = 12 << 11;
const DOS_DATE = ((2024 - 1980) << 9) | (6 << 5) | 1;

/** Builds a complete archive (local headers, data, central directory, EOCD) of `entries`. */
export function buildZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const data = e.data ?? Buffer.alloc(0);
    const method = e.method ?? (data.length > 0 ? 8 : 0);
    const body = method === 8 ? deflateRawSync(data) : data;
    const crc = crc32(data) >>> 0;
    const size = e.declaredSize ?? data.length;
    const mode = e.mode ?? (e.name.endsWith("/") ? 0o040755 : 0o100644);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    const flags = 0x0800 | (e.flags ?? 0);
    lh.writeUInt16LE(flags, 6);
    lh.writeUInt16LE(method, 8);
    lh.writeUInt16LE(DOS_TIME, 10);
    lh.writeUInt16LE(DOS_DATE, 12);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(body.length, 18);
    lh.writeUInt32LE(size, 22);
    lh.writeUInt16LE(name.length, 26);
    lh.writeUInt16LE(0, 28);
    locals.push(lh, name, body);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(flags, 8);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt16LE(DOS_TIME, 12);
    ch.writeUInt16LE(DOS_DATE, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(body.length, 20);
    ch.writeUInt32LE(size, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE((mode << 16) >>> 0, 38);
    ch.writeUInt32LE(offset, 42);
    centrals.push(ch, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}
