/**
 * A small in-memory ZIP writer for the mock's special archives (hostile ones for the
 * `hostileArchive` fault, and test fixtures): stored or deflated entries, any name bytes, any
 * unix mode, and optionally a declared uncompressed size that lies. Not for large files.
 */
import { crc32, deflateRawSync } from "node:zlib";
import { archiveEnd, centralHeader, localHeader, type ZipEntryFields } from "./zip-records.js";

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

/** Builds a complete archive (local headers, data, central directory, EOCD) of `entries`. */
export function buildZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0);
    const method = e.method ?? (data.length > 0 ? 8 : 0);
    const body = method === 8 ? deflateRawSync(data) : data;
    const fields: ZipEntryFields = {
      name: Buffer.from(e.name, "utf8"),
      flags: e.flags ?? 0,
      method,
      crc: crc32(data) >>> 0,
      csize: body.length,
      size: e.declaredSize ?? data.length,
    };
    const mode = e.mode ?? (e.name.endsWith("/") ? 0o040755 : 0o100644);
    const local = localHeader(fields, false);
    locals.push(local, body);
    centrals.push(centralHeader(fields, { offset, mode }, false));
    offset += local.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = archiveEnd({ entries: entries.length, size: cd.length, offset }, offset, false);
  return Buffer.concat([...locals, cd, ...end]);
}
