/**
 * ZIP generator for pack files: a valid archive in nested folders — a stored
 * README.txt, a deflated docs/LICENSE.txt and one stored GLB per asset under
 * models/ — with correct CRC-32s, a
 * central directory and an end-of-central-directory record. Archives of 4 GiB
 * or more use ZIP64 (entries stay below 256 MiB each). Content derives from
 * slug, edition and version only, so the same inputs always give the same bytes.
 */
import { deflateRawSync } from "node:zlib";
import { crcOfSegments, type Layout, makeLayout, type Segment, segmentLength } from "./content.js";
import { glbSegments, minGlbSize } from "./glb.js";

/** Largest single entry, in bytes. */
const MAX_ENTRY = 256 * 1024 * 1024;
/** Most GLB entries in one archive. */
const MAX_ENTRIES = 500;
const DOS_TIME = 12 << 11; // 12:00:00
const DOS_DATE = ((2024 - 1980) << 9) | (6 << 5) | 1; // 2024-06-01
const U32_MAX = 0xffffffff;

/** What a pack archive is generated from. */
export interface PackZipInput {
  slug: string;
  edition: "standard" | "authoring";
  version: number;
  /** Number of GLB entries wanted (the pack's asset_count), capped. */
  assetCount: number;
  /** Wanted archive size in bytes; the result is exactly this size unless it is below the minimum. */
  size: number;
}

interface Entry {
  name: Buffer;
  /** The bytes as stored in the archive (compressed for deflate). */
  segments: Segment[];
  /** Uncompressed size. */
  size: number;
  crc: number;
  offset: number;
  /** 0 stored, 8 deflate. */
  method: 0 | 8;
  /** Compressed size (= size when stored). */
  csize: number;
}

/** The deflated licence text of a pack: repetitive, so deflate really shrinks it. */
function licenseEntry(root: string, input: PackZipInput): Entry {
  const line = `Licensed to the purchaser of ${input.slug} (${input.edition}, v${input.version}) for use in their projects.\n`;
  const text = Buffer.from(`svc-dl-mock licence\n${line.repeat(40)}`, "utf8");
  const packed = deflateRawSync(text, { level: 9 });
  return {
    name: Buffer.from(`${root}/docs/LICENSE.txt`, "utf8"),
    segments: [{ kind: "lit", buf: packed }],
    size: text.length,
    crc: crcOfSegments([{ kind: "lit", buf: text }]),
    offset: 0,
    method: 8,
    csize: packed.length,
  };
}

function readmeText(input: PackZipInput, pad: number): Buffer {
  const text =
    `svc-dl-mock pack archive\n` +
    `slug: ${input.slug}\nedition: ${input.edition}\nversion: ${input.version}\n` +
    `Generated deterministically by svc-dl-mock; contents are placeholders.\n`;
  return Buffer.concat([Buffer.from(text, "utf8"), Buffer.alloc(Math.max(0, pad), 0x2e)]);
}

/** Build the layout (segments, offsets, CRCs) of a pack ZIP. Cost: one CRC pass over the data. */
export function packZipLayout(input: PackZipInput): Layout {
  const first = buildZip(input, input.size >= U32_MAX - 1024 * 1024);
  if (first.zip64Needed) return buildZip(input, true).layout;
  return first.layout;
}

function buildZip(input: PackZipInput, zip64: boolean): { layout: Layout; zip64Needed: boolean } {
  const root = input.edition === "authoring" ? `${input.slug}-authoring` : input.slug;
  const seedBase = `${input.slug}/${input.edition}/v${input.version}`;
  const readmeName = Buffer.from(`${root}/README.txt`, "utf8");
  const glbName = (i: number) =>
    Buffer.from(`${root}/models/${input.slug}-${String(i + 1).padStart(3, "0")}.glb`, "utf8");
  const perEntryOverhead = (nameLen: number) => 30 + 46 + 2 * nameLen + (zip64 ? 12 : 0);
  const tail = 22 + (zip64 ? 56 + 20 : 0);
  const readmeBase = readmeText(input, 0).length;
  const license = licenseEntry(root, input);

  let k = Math.max(1, Math.min(input.assetCount, MAX_ENTRIES));
  const avail = () =>
    input.size -
    tail -
    perEntryOverhead(readmeName.length) -
    readmeBase -
    perEntryOverhead(license.name.length) -
    license.csize -
    k * perEntryOverhead(glbName(0).length);
  k = Math.max(k, Math.ceil(avail() / MAX_ENTRY));
  const minGlb = minGlbSize(`${input.slug}-000`, `${seedBase}/000`) + 16;
  while (k > 1 && avail() / k < minGlb) k--;
  const per = Math.max(minGlb, Math.floor(Math.max(0, avail()) / k / 4) * 4);
  const pad = Math.max(0, avail() - per * k);

  const entries: Entry[] = [];
  const readme = readmeText(input, pad);
  entries.push({
    name: readmeName,
    segments: [{ kind: "lit", buf: readme }],
    size: readme.length,
    crc: 0,
    offset: 0,
    method: 0,
    csize: readme.length,
  });
  entries.push(license);
  for (let i = 0; i < k; i++) {
    const segs = glbSegments(
      `${input.slug}-${String(i + 1).padStart(3, "0")}`,
      `${seedBase}/${i}`,
      per,
    );
    const size = sumLen(segs);
    entries.push({
      name: glbName(i),
      segments: segs,
      size,
      crc: 0,
      offset: 0,
      method: 0,
      csize: size,
    });
  }

  const segments: Segment[] = [];
  let pos = 0;
  let zip64Needed = false;
  for (const e of entries) {
    if (e.method === 0) e.crc = crcOfSegments(e.segments);
    e.offset = pos;
    if (pos >= U32_MAX) zip64Needed = true;
    const lh = Buffer.alloc(30 + e.name.length);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(zip64 ? 45 : 20, 4);
    lh.writeUInt16LE(0x0800, 6); // UTF-8 names
    lh.writeUInt16LE(e.method, 8);
    lh.writeUInt16LE(DOS_TIME, 10);
    lh.writeUInt16LE(DOS_DATE, 12);
    lh.writeUInt32LE(e.crc, 14);
    lh.writeUInt32LE(e.csize, 18);
    lh.writeUInt32LE(e.size, 22);
    lh.writeUInt16LE(e.name.length, 26);
    lh.writeUInt16LE(0, 28);
    e.name.copy(lh, 30);
    segments.push({ kind: "lit", buf: lh }, ...e.segments);
    pos += lh.length + e.csize;
  }

  const cdOffset = pos;
  const cdParts: Buffer[] = [];
  for (const e of entries) {
    const extraLen = zip64 ? 12 : 0;
    const ch = Buffer.alloc(46 + e.name.length + extraLen);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(0x0300 | (zip64 ? 45 : 20), 4); // made by: Unix
    ch.writeUInt16LE(zip64 ? 45 : 20, 6);
    ch.writeUInt16LE(0x0800, 8);
    ch.writeUInt16LE(e.method, 10);
    ch.writeUInt16LE(DOS_TIME, 12);
    ch.writeUInt16LE(DOS_DATE, 14);
    ch.writeUInt32LE(e.crc, 16);
    ch.writeUInt32LE(e.csize, 20);
    ch.writeUInt32LE(e.size, 24);
    ch.writeUInt16LE(e.name.length, 28);
    ch.writeUInt16LE(extraLen, 30);
    ch.writeUInt16LE(0, 32); // comment
    ch.writeUInt16LE(0, 34); // disk
    ch.writeUInt16LE(0, 36); // internal attrs
    ch.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    ch.writeUInt32LE(zip64 ? U32_MAX : e.offset, 42);
    e.name.copy(ch, 46);
    if (zip64) {
      const x = 46 + e.name.length;
      ch.writeUInt16LE(0x0001, x);
      ch.writeUInt16LE(8, x + 2);
      ch.writeBigUInt64LE(BigInt(e.offset), x + 4);
    }
    cdParts.push(ch);
  }
  const cd = Buffer.concat(cdParts);
  segments.push({ kind: "lit", buf: cd });
  pos += cd.length;
  if (cdOffset >= U32_MAX || pos >= U32_MAX) zip64Needed = true;

  const n = entries.length;
  if (zip64) {
    const rec = Buffer.alloc(56 + 20);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE(0x032d, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeUInt32LE(0, 16);
    rec.writeUInt32LE(0, 20);
    rec.writeBigUInt64LE(BigInt(n), 24);
    rec.writeBigUInt64LE(BigInt(n), 32);
    rec.writeBigUInt64LE(BigInt(cd.length), 40);
    rec.writeBigUInt64LE(BigInt(cdOffset), 48);
    rec.writeUInt32LE(0x07064b50, 56);
    rec.writeUInt32LE(0, 60);
    rec.writeBigUInt64LE(BigInt(pos), 64);
    rec.writeUInt32LE(1, 72);
    segments.push({ kind: "lit", buf: rec });
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(0, 4);
  eocd.writeUInt16LE(0, 6);
  eocd.writeUInt16LE(zip64 ? 0xffff : n, 8);
  eocd.writeUInt16LE(zip64 ? 0xffff : n, 10);
  eocd.writeUInt32LE(zip64 ? U32_MAX : cd.length, 12);
  eocd.writeUInt32LE(zip64 ? U32_MAX : cdOffset, 16);
  eocd.writeUInt16LE(0, 20);
  segments.push({ kind: "lit", buf: eocd });
  return { layout: makeLayout(segments), zip64Needed: zip64Needed && !zip64 };
}

function sumLen(segs: Segment[]): number {
  let n = 0;
  for (const s of segs) n += segmentLength(s);
  return n;
}
