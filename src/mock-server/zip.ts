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
import {
  archiveEnd,
  centralHeader,
  localHeader,
  U32_MAX,
  type ZipEntryFields,
} from "./zip-records.js";

/** Largest single entry, in bytes. */
const MAX_ENTRY = 256 * 1024 * 1024;
/** Most GLB entries in one archive. */
const MAX_ENTRIES = 500;
/** Unix mode of every entry: a regular file, rw-r--r--. */
const FILE_MODE = 0o100644;

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

interface Entry extends ZipEntryFields {
  /** The bytes as stored in the archive (compressed for deflate). */
  segments: Segment[];
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
  const entries = packEntries(input, zip64);
  const segments: Segment[] = [];
  const offsets: number[] = [];
  let pos = 0;
  for (const e of entries) {
    offsets.push(pos);
    const lh = localHeader(e, zip64);
    segments.push({ kind: "lit", buf: lh }, ...e.segments);
    pos += lh.length + e.csize;
  }
  const cd = Buffer.concat(
    entries.map((e, i) => centralHeader(e, { offset: offsets[i] ?? 0, mode: FILE_MODE }, zip64)),
  );
  segments.push({ kind: "lit", buf: cd });
  const cdOffset = pos;
  pos += cd.length;
  const end = archiveEnd(
    { entries: entries.length, size: cd.length, offset: cdOffset },
    pos,
    zip64,
  );
  for (const buf of end) segments.push({ kind: "lit", buf });
  const zip64Needed = offsets.some((o) => o >= U32_MAX) || cdOffset >= U32_MAX || pos >= U32_MAX;
  return { layout: makeLayout(segments), zip64Needed: zip64Needed && !zip64 };
}

/**
 * The entries of a pack archive sized so the whole archive is `input.size` bytes: the README
 * (padded to fill), the deflated licence, and `k` GLBs of equal size, `k` between 1 and
 * MAX_ENTRIES and large enough that no GLB exceeds MAX_ENTRY.
 */
function packEntries(input: PackZipInput, zip64: boolean): Entry[] {
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

  const readme = readmeText(input, pad);
  const glbs = Array.from({ length: k }, (_, i) =>
    storedEntry(
      glbName(i),
      glbSegments(`${input.slug}-${String(i + 1).padStart(3, "0")}`, `${seedBase}/${i}`, per),
    ),
  );
  return [storedEntry(readmeName, [{ kind: "lit", buf: readme }]), license, ...glbs];
}

/** A stored entry of these segments (one CRC pass over them). */
function storedEntry(name: Buffer, segments: Segment[]): Entry {
  const size = sumLen(segments);
  return { name, segments, size, crc: crcOfSegments(segments), method: 0, csize: size };
}

function sumLen(segs: Segment[]): number {
  let n = 0;
  for (const s of segs) n += segmentLength(s);
  return n;
}
