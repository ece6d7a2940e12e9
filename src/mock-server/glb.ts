/**
 * GLB 2.0 generator (binary glTF): 12-byte header (`glTF` magic, version 2,
 * total length), a JSON chunk (space-padded) and a BIN chunk whose bytes are a
 * deterministic pattern segment. Sizes are in bytes and multiples of 4.
 */
import { BLOCK_SIZE, hash32, type Segment } from "./content.js";

const MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"

/** Round a byte count up to a multiple of 4. */
export function roundUp4(n: number): number {
  return Math.ceil(n / 4) * 4;
}

function jsonFor(name: string, seed: string, binLength: number): string {
  return JSON.stringify({
    asset: { version: "2.0", generator: "svc-dl-mock" },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name }],
    buffers: [{ byteLength: binLength }],
    extras: { seed },
  });
}

/** Smallest GLB size (bytes) this generator produces for `name`/`seed`. */
export function minGlbSize(name: string, seed: string): number {
  return 28 + roundUp4(Buffer.byteLength(jsonFor(name, seed, 4000000000))) + 4;
}

/**
 * Segments of a valid GLB file of exactly `size` bytes (rounded up to a
 * multiple of 4 and to the minimum), deterministic from `name` and `seed`.
 */
export function glbSegments(name: string, seed: string, size: number): Segment[] {
  const total = Math.max(roundUp4(size), minGlbSize(name, seed));
  // JSON chunk length depends on the digits of binLength: iterate to a fixed point.
  let jsonPadded = roundUp4(Buffer.byteLength(jsonFor(name, seed, total)));
  let json = "";
  for (let i = 0; i < 4; i++) {
    const binLength = total - 28 - jsonPadded;
    json = jsonFor(name, seed, binLength);
    const need = roundUp4(Buffer.byteLength(json));
    if (need <= jsonPadded) break;
    jsonPadded = need;
  }
  const binLength = total - 28 - jsonPadded;
  const head = Buffer.alloc(12 + 8 + jsonPadded + 8, 0x20);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(total, 8);
  head.writeUInt32LE(jsonPadded, 12);
  head.writeUInt32LE(CHUNK_JSON, 16);
  head.write(json, 20, "utf8");
  head.writeUInt32LE(binLength, 20 + jsonPadded);
  head.writeUInt32LE(CHUNK_BIN, 24 + jsonPadded);
  return [
    { kind: "lit", buf: head },
    { kind: "pat", shift: hash32(`bin:${seed}`) % BLOCK_SIZE, length: binLength },
  ];
}
