/**
 * Deterministic file content built from a few precomputed buffers, so that
 * files of any size (up to many GiB) are generated as streams, never stored.
 *
 * A file is a list of segments: literal buffers (headers, JSON) and "pattern"
 * segments whose byte at position q is `BASE[(shift + q) % BASE.length]`.
 * Any byte range maps to subarrays of these buffers, so a Range request yields
 * exactly the bytes of the full file at that offset, with no copying.
 */
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

/** Length of the shared pseudo-random block: 1 MiB. */
export const BLOCK_SIZE = 1 << 20;

/** The shared deterministic 1 MiB block (xorshift32 from a fixed seed). */
export const BASE_BLOCK: Buffer = makeBlock(0x5eed1234);

function makeBlock(seed: number): Buffer {
  const buf = Buffer.allocUnsafe(BLOCK_SIZE);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < BLOCK_SIZE; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf.writeUInt32LE(x, i);
  }
  return buf;
}

/** A literal segment: these exact bytes. */
export interface LiteralSegment {
  kind: "lit";
  buf: Buffer;
}

/** A pattern segment of `length` bytes starting at offset `shift` of the base block (wrapping). */
export interface PatternSegment {
  kind: "pat";
  shift: number;
  length: number;
}

export type Segment = LiteralSegment | PatternSegment;

/** A generated file: its segments with cumulative start offsets (bytes). */
export interface Layout {
  segments: Segment[];
  /** `starts[i]` is the file offset of `segments[i]`. */
  starts: number[];
  /** Total size in bytes. */
  size: number;
}

/** Length of a segment in bytes. */
export function segmentLength(seg: Segment): number {
  return seg.kind === "lit" ? seg.buf.length : seg.length;
}

/** Build a layout (cumulative offsets) from segments. */
export function makeLayout(segments: Segment[]): Layout {
  const starts: number[] = [];
  let pos = 0;
  for (const seg of segments) {
    starts.push(pos);
    pos += segmentLength(seg);
  }
  return { segments, starts, size: pos };
}

/** A deterministic 32-bit number derived from a string (first 4 bytes of its SHA-256). */
export function hash32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32LE(0);
}

/**
 * Yield the bytes of one segment from `from` (inclusive) to `to` (exclusive),
 * relative to the segment, as subarrays of at most `maxChunk` bytes.
 */
export function* segmentChunks(
  seg: Segment,
  from: number,
  to: number,
  maxChunk: number = BLOCK_SIZE,
): Generator<Buffer> {
  if (seg.kind === "lit") {
    for (let p = from; p < to; p += maxChunk) {
      yield seg.buf.subarray(p, Math.min(to, p + maxChunk));
    }
    return;
  }
  let p = from;
  while (p < to) {
    const off = (seg.shift + p) % BLOCK_SIZE;
    const n = Math.min(to - p, BLOCK_SIZE - off, maxChunk);
    yield BASE_BLOCK.subarray(off, off + n);
    p += n;
  }
}

/** Yield the bytes of a file range `[start, end]` (inclusive, bytes) as buffers of at most `maxChunk` bytes. */
export function* rangeChunks(
  layout: Layout,
  start: number,
  end: number,
  maxChunk: number = BLOCK_SIZE,
): Generator<Buffer> {
  const stop = end + 1;
  let i = findSegment(layout, start);
  let pos = start;
  while (pos < stop && i < layout.segments.length) {
    const seg = layout.segments[i];
    const segStart = layout.starts[i];
    if (seg === undefined || segStart === undefined) break;
    const segEnd = segStart + segmentLength(seg);
    const to = Math.min(stop, segEnd);
    yield* segmentChunks(seg, pos - segStart, to - segStart, maxChunk);
    pos = to;
    i++;
  }
}

/** Index of the segment holding file offset `pos` (binary search). */
function findSegment(layout: Layout, pos: number): number {
  let lo = 0;
  let hi = layout.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const s = layout.starts[mid] ?? 0;
    if (s <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** CRC-32 (ZIP polynomial) of a sequence of segments, bytes generated on the fly. */
export function crcOfSegments(segments: Segment[]): number {
  let crc = 0;
  for (const seg of segments) {
    for (const chunk of segmentChunks(seg, 0, segmentLength(seg))) crc = crc32(chunk, crc);
  }
  return crc >>> 0;
}

/** SHA-256 (hex) of a whole layout, streamed chunk by chunk (memory does not grow with size). */
export async function sha256OfLayout(layout: Layout): Promise<string> {
  const hash = createHash("sha256");
  let n = 0;
  for (const chunk of rangeChunks(layout, 0, layout.size - 1)) {
    hash.update(chunk);
    // yield to the event loop now and then so huge files do not starve the servers
    if (++n % 64 === 0) await new Promise<void>((r) => setImmediate(r));
  }
  return hash.digest("hex");
}
