import type { FileHandle } from "node:fs/promises";
import type { Damage } from "./damage.js";

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"
const HEADER = 12;
const CHUNK_HEADER = 8;

/**
 * Checks the structure of a binary glTF 2.0 file of `size` bytes read through `file`
 * (cli-contract "Integrity"; glTF 2.0 §4.4 "GLB File Format Specification"): magic `glTF`,
 * version 2, the header's length equal to `size`, every chunk length a multiple of 4 and the
 * chunks adding up exactly to the length, the first chunk `JSON` holding valid UTF-8 JSON, at
 * most one `BIN` chunk after it (chunks of other types are skipped, as the format says).
 * A GLB carries no checksum of its publisher's: this finds truncation, splicing and damage to
 * the structure, not a flipped byte inside the binary chunk. Returns the damage, or undefined
 * when the file is sound. Throws read errors only.
 */
export async function findGlbDamage(file: FileHandle, size: number): Promise<Damage | undefined> {
  if (size < HEADER) return { reason: `${size} bytes is too short for a GLB header`, offset: 0 };
  const header = await readAt(file, 0, HEADER);
  if (header.readUInt32LE(0) !== GLB_MAGIC) {
    return { reason: "not a GLB file (no glTF magic)", offset: 0 };
  }
  const version = header.readUInt32LE(4);
  if (version !== 2) return { reason: `unsupported GLB version ${version}`, offset: 4 };
  const declared = header.readUInt32LE(8);
  if (declared !== size) {
    return { reason: `GLB header declares ${declared} bytes but the file has ${size}`, offset: 8 };
  }
  let offset = HEADER;
  let index = 0;
  let binChunks = 0;
  while (offset < size) {
    if (size - offset < CHUNK_HEADER) {
      return { reason: "GLB ends inside a chunk header", offset };
    }
    const chunk = await readAt(file, offset, CHUNK_HEADER);
    const length = chunk.readUInt32LE(0);
    const type = chunk.readUInt32LE(4);
    if (length % 4 !== 0) {
      return { reason: `GLB chunk ${index} length ${length} is not a multiple of 4`, offset };
    }
    if (length > size - offset - CHUNK_HEADER) {
      return { reason: `GLB chunk ${index} (${length} bytes) runs past the end`, offset };
    }
    if (index === 0) {
      if (type !== CHUNK_JSON) return { reason: "the first GLB chunk is not JSON", offset };
      const problem = jsonProblem(await readAt(file, offset + CHUNK_HEADER, length));
      if (problem) return { reason: `GLB JSON chunk ${problem}`, offset: offset + CHUNK_HEADER };
    } else if (type === CHUNK_JSON) {
      return { reason: `GLB chunk ${index} is a second JSON chunk`, offset };
    } else if (type === CHUNK_BIN && ++binChunks > 1) {
      return { reason: `GLB chunk ${index} is a second BIN chunk`, offset };
    }
    offset += CHUNK_HEADER + length;
    index++;
  }
  if (index === 0) return { reason: "GLB has no JSON chunk", offset: HEADER };
  return undefined;
}

function jsonProblem(bytes: Buffer): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return "is not valid UTF-8";
  }
  try {
    JSON.parse(text);
  } catch {
    return "is not valid JSON";
  }
  return undefined;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`file ended at byte ${position + done} while reading`);
    done += bytesRead;
  }
  return buf;
}
