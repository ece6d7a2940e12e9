import { open } from "node:fs/promises";
import type { Entry, LocalFileHeader } from "yauzl";
import { READ_NO_FOLLOW } from "../io/safe-fs.js";
import { localMismatch, type ParseExtraFields } from "./local-header.js";
import { listEntries, openArchive } from "./zip-check.js";

/**
 * What checking a ZIP as it was read back found (cli-contract "Integrity"): `sound` means every
 * entry of the central directory was seen, its local header agreeing and its data matching its
 * CRC-32 and sizes, so the archive passes `findDamage` without reading it again; `unsure` means
 * anything else, and only `findDamage` may decide.
 */
export type FormatVerdict = "sound" | "unsure";

/** One entry as the streaming ZIP check saw it pass (src/integrity/zip-stream-check.ts). */
export interface WalkedEntry {
  /** Offset in the file of its local header. */
  offset: number;
  /** The local header as yauzl parsed it. */
  header: LocalFileHeader;
  /** Offset of its first data byte. */
  dataStart: number;
  /** Data bytes walked (compressed, for a deflated entry). */
  compressedBytes: number;
  /** Bytes its data inflated to (for a stored entry: the data bytes); 0 when not checked. */
  uncompressedBytes: number;
  /** CRC-32 of those bytes (unsigned). */
  crc32: number;
  /** Its data was checked (false for an encrypted entry: its CRC-32 is of the plaintext). */
  checked: boolean;
  /** Stored, or its deflate stream ended exactly at the data's last byte without an error. */
  endedExactly: boolean;
}

/**
 * Reads the central directory of the file at `path` (yauzl, over our own descriptor opened
 * without following a symlink) and compares it with the `walked` entries ({@link verdictOf}).
 * Never throws: a read error or a directory that does not parse is `unsure`.
 */
export async function settleWalk(
  path: string,
  walked: readonly WalkedEntry[],
): Promise<FormatVerdict> {
  try {
    const file = await open(path, READ_NO_FOLLOW);
    try {
      const opened = await openArchive(file);
      if ("reason" in opened) return "unsure";
      try {
        // the walk holds at most 100,000 entries: a directory claiming another count is not
        // listed (a hostile count would fill the memory), findDamage reads it in batches
        if (opened.zip.entryCount !== walked.length) return "unsure";
        const central = await listEntries(opened.zip);
        if ("reason" in central) return "unsure";
        return verdictOf(central, walked, opened.yauzl.parseExtraFields);
      } finally {
        opened.zip.close();
      }
    } finally {
      await file.close();
    }
  } catch {
    return "unsure";
  }
}

/**
 * `sound` only when the walk saw exactly the central directory's entries and each one checks
 * as `findDamage` would check it (src/integrity/zip-check.ts): its local header at exactly
 * `relativeOffsetOfLocalHeader`, agreeing with the central record ({@link localMismatch}),
 * its compressed size walked, and unless the central record says encrypted: stored or
 * deflate, data checked, deflate stream ended exactly at the data's end, uncompressed size and
 * CRC-32 equal to the record. Anything else is `unsure`.
 */
export function verdictOf(
  central: readonly Entry[],
  walked: readonly WalkedEntry[],
  parseExtraFields: ParseExtraFields,
): FormatVerdict {
  if (central.length !== walked.length) return "unsure";
  const byOffset = new Map(walked.map((w) => [w.offset, w]));
  if (byOffset.size !== walked.length) return "unsure";
  for (const entry of central) {
    const seen = byOffset.get(entry.relativeOffsetOfLocalHeader);
    if (!seen || !entryChecks(entry, seen, parseExtraFields)) return "unsure";
    byOffset.delete(entry.relativeOffsetOfLocalHeader); // each walked entry matches one record
  }
  return "sound";
}

function entryChecks(entry: Entry, seen: WalkedEntry, parseExtraFields: ParseExtraFields): boolean {
  if (localMismatch(entry, seen.header, parseExtraFields) !== undefined) return false;
  if (seen.compressedBytes !== entry.compressedSize) return false;
  if (entry.isEncrypted()) return true; // as findDamage: its CRC-32 is of the plaintext
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) return false;
  return (
    seen.checked &&
    seen.endedExactly &&
    seen.uncompressedBytes === entry.uncompressedSize &&
    seen.crc32 >>> 0 === entry.crc32 >>> 0
  );
}
