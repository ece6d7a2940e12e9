/**
 * The pack of the bench's deflated row (test/bench/deflated.js): a ZIP whose entries are
 * deflated GLB-like data that compresses to about half, as exported meshes do (float32 vertex
 * values on a 1/1024 grid: their low mantissa bytes are zero, the rest is noise). A few
 * distinct 16 MiB entry bodies are deflated once (zlib, level 6) and repeated under other names
 * until the archive is about `size` bytes, so a 512 MiB pack takes seconds to make, not
 * minutes; every entry is still inflated and CRC-checked by whoever tests the archive. The
 * records are written as APPNOTE 4.3.7, 4.3.12 and 4.3.16 say (no ZIP64: under 4 GiB).
 * Plain ESM JavaScript, Node built-ins only.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";

const MIB = 1024 * 1024;
/** Uncompressed size of one entry. */
const ENTRY_BYTES = 16 * MIB;
/** Distinct entry bodies (the others repeat them). */
const VARIANTS = 6;
const DOS_TIME = 12 << 11;
const DOS_DATE = ((2024 - 1980) << 9) | (6 << 5) | 1;

/** `bytes` of float32 values in [-1, 1] on a 1/1024 grid, from random noise. */
function glbLikeData(bytes) {
  const values = new Float32Array(bytes / 4);
  const noise = randomBytes(bytes / 2);
  for (let i = 0; i < values.length; i++) {
    const v = (noise.readUInt16LE(i * 2) / 65536) * 2 - 1;
    values[i] = Math.round(v * 1024) / 1024;
  }
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** The fields both headers of an entry share: flags (UTF-8), method, time, CRC, sizes. */
function common(buf, at, e) {
  buf.writeUInt16LE(0x0800, at);
  buf.writeUInt16LE(8, at + 2);
  buf.writeUInt16LE(DOS_TIME, at + 4);
  buf.writeUInt16LE(DOS_DATE, at + 6);
  buf.writeUInt32LE(e.crc, at + 8);
  buf.writeUInt32LE(e.csize, at + 12);
  buf.writeUInt32LE(e.size, at + 16);
}

function localHeader(e) {
  const lh = Buffer.alloc(30 + e.name.length);
  lh.writeUInt32LE(0x04034b50, 0);
  lh.writeUInt16LE(20, 4);
  common(lh, 6, e);
  lh.writeUInt16LE(e.name.length, 26);
  e.name.copy(lh, 30);
  return lh;
}

function centralHeader(e, offset) {
  const ch = Buffer.alloc(46 + e.name.length);
  ch.writeUInt32LE(0x02014b50, 0);
  ch.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
  ch.writeUInt16LE(20, 6);
  common(ch, 8, e);
  ch.writeUInt16LE(e.name.length, 28);
  ch.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  ch.writeUInt32LE(offset, 42);
  e.name.copy(ch, 46);
  return ch;
}

/**
 * Writes the pack to `path` (a new file): entries `<slug>/models/<slug>-NNN.glb` while the
 * archive stays at most `size` bytes (at least one). Returns `{ bytes, sha256, entries,
 * uncompressedBytes, ratio }` (ratio: compressed / uncompressed data).
 */
export function writeDeflatedPack(path, size, slug) {
  const variants = [];
  for (let i = 0; i < VARIANTS; i++) {
    const data = glbLikeData(ENTRY_BYTES);
    const body = deflateRawSync(data, { level: 6 });
    variants.push({ body, crc: crc32(data) >>> 0, size: data.length });
  }
  const fd = openSync(path, "wx");
  const hash = createHash("sha256");
  let offset = 0;
  const write = (buf) => {
    writeSync(fd, buf);
    hash.update(buf);
    offset += buf.length;
  };
  const centrals = [];
  let uncompressedBytes = 0;
  try {
    for (let i = 0; ; i++) {
      const v = variants[i % VARIANTS];
      const name = Buffer.from(`${slug}/models/${slug}-${String(i + 1).padStart(3, "0")}.glb`);
      const e = { name, crc: v.crc, csize: v.body.length, size: v.size };
      const lh = localHeader(e);
      const next = offset + lh.length + v.body.length + (centrals.length + 1) * (46 + 80) + 22;
      if (i > 0 && next > size) break;
      centrals.push(centralHeader(e, offset));
      write(lh);
      write(v.body);
      uncompressedBytes += v.size;
    }
    const cd = Buffer.concat(centrals);
    const cdOffset = offset;
    write(cd);
    const eocd = Buffer.alloc(22);
    eocd.writeUInt32LE(0x06054b50, 0);
    eocd.writeUInt16LE(centrals.length, 8);
    eocd.writeUInt16LE(centrals.length, 10);
    eocd.writeUInt32LE(cd.length, 12);
    eocd.writeUInt32LE(cdOffset, 16);
    write(eocd);
  } finally {
    closeSync(fd);
  }
  const compressed = variants.reduce((n, v) => n + v.body.length, 0) / VARIANTS;
  return {
    bytes: offset,
    sha256: hash.digest("hex"),
    entries: centrals.length,
    uncompressedBytes,
    ratio: compressed / ENTRY_BYTES,
  };
}
