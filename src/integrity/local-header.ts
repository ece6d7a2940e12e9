import type { Entry, LocalFileHeader } from "yauzl";
import { hex } from "./damage.js";

/** General purpose bit 3: CRC-32 and sizes follow the data in a data descriptor (APPNOTE 4.4.4). */
export const DATA_DESCRIPTOR_FLAG = 0x0008;
/** General purpose bit 0: the entry is encrypted (APPNOTE 4.4.4). */
export const ENCRYPTED_FLAG = 0x0001;
const ZIP64_EXTRA = 0x0001;
const UNKNOWN32 = 0xffffffff;

/** yauzl's `parseExtraFields`, passed in because yauzl is imported lazily. */
export type ParseExtraFields = typeof import("yauzl").parseExtraFields;

/**
 * How an entry's local header disagrees with its central directory record (cli-contract
 * "Integrity": every local header agrees with the central directory): the name bytes, the
 * compression method and, unless sizes follow in a data descriptor, the CRC-32 and both sizes
 * (ZIP64 read as such). Returns a short reason, or undefined when they agree.
 */
export function localMismatch(
  entry: Entry,
  local: LocalFileHeader,
  parseExtraFields: ParseExtraFields,
): string | undefined {
  if (!local.fileName.equals(entry.fileNameRaw)) return "the names differ";
  if (local.compressionMethod !== entry.compressionMethod) {
    return `compression method ${local.compressionMethod} vs ${entry.compressionMethod}`;
  }
  if ((local.generalPurposeBitFlag & DATA_DESCRIPTOR_FLAG) !== 0) return undefined;
  if (local.crc32 !== entry.crc32) return `CRC-32 ${hex(local.crc32)} vs ${hex(entry.crc32)}`;
  const sizes = localSizes(local, parseExtraFields);
  if (sizes === undefined) return "its ZIP64 sizes are missing";
  if (sizes.compressed !== entry.compressedSize || sizes.uncompressed !== entry.uncompressedSize) {
    return `sizes ${sizes.compressed}/${sizes.uncompressed} vs ${entry.compressedSize}/${entry.uncompressedSize}`;
  }
  return undefined;
}

/**
 * The local header's sizes in bytes, from its ZIP64 extra field where the 32-bit fields say so
 * (APPNOTE 4.5.3); undefined when that field is missing, short or does not parse.
 */
export function localSizes(
  local: LocalFileHeader,
  parseExtraFields: ParseExtraFields,
): { compressed: number; uncompressed: number } | undefined {
  let { compressedSize: compressed, uncompressedSize: uncompressed } = local;
  if (compressed !== UNKNOWN32 && uncompressed !== UNKNOWN32) return { compressed, uncompressed };
  let fields: ReturnType<ParseExtraFields>;
  try {
    fields = parseExtraFields(local.extraField);
  } catch {
    return undefined;
  }
  const zip64 = fields.find((f) => f.id === ZIP64_EXTRA)?.data;
  // the local header's ZIP64 field holds both sizes, uncompressed first (APPNOTE 4.5.3)
  if (zip64 === undefined || zip64.length < 16) return undefined;
  uncompressed = Number(zip64.readBigUInt64LE(0));
  compressed = Number(zip64.readBigUInt64LE(8));
  return { compressed, uncompressed };
}
