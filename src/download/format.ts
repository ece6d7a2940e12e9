import type { CheckedFormat } from "../integrity/check-file.js";

/*
 * The checks of a streamed download (`-o -`), whose bytes are gone before its end; a file is
 * checked in full before it takes its name (src/integrity/check-file.ts).
 */

const ZIP_LOCAL_HEADER = 0x04034b50; // "PK\x03\x04"
const ZIP_EOCD = 0x06054b50; // "PK\x05\x06"
const ZIP_CENTRAL_HEADER = 0x02014b50; // "PK\x01\x02"
const EOCD_SIZE = 22;
const GLB_MAGIC = 0x46546c67; // "glTF"

/**
 * Checks the leading bytes of a download against its format (cli-contract "Downloads"):
 * ZIP starts with `PK\x03\x04`, GLB with the `glTF` magic. Needs at least 4 bytes (12 for GLB
 * to read the declared length). Returns a short reason when the bytes are wrong, else undefined.
 * `size`, when known, is compared with a GLB's declared length.
 */
export function checkLeadingBytes(
  format: CheckedFormat,
  head: Buffer,
  size?: number,
): string | undefined {
  if (format === "zip") {
    if (head.length < 4 || head.readUInt32LE(0) !== ZIP_LOCAL_HEADER) {
      return `not a ZIP archive (starts with ${describeHead(head)})`;
    }
    return undefined;
  }
  if (head.length < 12 || head.readUInt32LE(0) !== GLB_MAGIC) {
    return `not a GLB file (starts with ${describeHead(head)})`;
  }
  const version = head.readUInt32LE(4);
  if (version !== 2) return `unsupported GLB version ${version}`;
  const declared = head.readUInt32LE(8);
  if (size !== undefined && declared !== size) {
    return `GLB header declares ${declared} bytes but the file has ${size}`;
  }
  return undefined;
}

/**
 * Checks the last bytes of a ZIP of `size` bytes (`tail` holds up to the last 65 557 bytes) for
 * an end-of-central-directory record whose comment ends exactly at the end and whose central
 * directory lies inside the file; with `readAt`, also that the central directory starts with
 * `PK\x01\x02`. Returns a short reason when not, else undefined.
 */
export function checkZipTail(
  tail: Buffer,
  size: number,
  readAt?: (offset: number) => Buffer,
): string | undefined {
  if (size < 4 + EOCD_SIZE || tail.length < EOCD_SIZE) {
    return "ZIP archive too short for an end-of-central-directory record";
  }
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== ZIP_EOCD) continue;
    const commentLength = tail.readUInt16LE(i + 20);
    if (i + EOCD_SIZE + commentLength !== tail.length) continue;
    const cdSize = tail.readUInt32LE(i + 12);
    const cdOffset = tail.readUInt32LE(i + 16);
    const eocdOffset = size - tail.length + i;
    if (cdOffset === 0xffffffff || cdSize === 0xffffffff) return undefined; // ZIP64: trust the record
    if (cdOffset + cdSize > eocdOffset) {
      return "ZIP central directory lies outside the archive (truncated download?)";
    }
    if (cdSize > 0 && readAt && readAt(cdOffset).readUInt32LE(0) !== ZIP_CENTRAL_HEADER) {
      return "ZIP central directory not where the end record says (truncated or spliced download?)";
    }
    return undefined;
  }
  return "ZIP end-of-central-directory record missing (truncated download?)";
}

function describeHead(head: Buffer): string {
  if (head.length === 0) return "nothing: the file is empty";
  const text = head
    .subarray(0, 8)
    .toString("latin1")
    .replace(/[^\x20-\x7e]/g, ".");
  return JSON.stringify(text);
}
