import type { FileHandle } from "node:fs/promises";
import { availableParallelism } from "node:os";
import type { Entry, LocalFileHeader, ZipFile } from "yauzl";
import { type Damage, hex } from "./damage.js";
import { handleReader } from "./handle-reader.js";
import { checkEntryData } from "./zip-entry-data.js";

const DATA_DESCRIPTOR_FLAG = 0x0008;
const ZIP64_EXTRA = 0x0001;
const UNKNOWN32 = 0xffffffff;

/**
 * Checks a ZIP archive read through `file` against the checksums its publisher
 * put in it (cli-contract "Integrity"): the end-of-central-directory record (ZIP64 read as such)
 * and the central directory parse (yauzl); every entry's local header has the central record's
 * signature, name, compression method and, unless sizes follow in a data descriptor, CRC-32 and
 * sizes; every entry's data, inflated when deflated (stored and deflate; other methods are
 * damage; an encrypted entry's data is not checked: its CRC-32 is of the plaintext), has the recorded
 * uncompressed size and CRC-32 (`zlib.crc32`). Entries are read in file order, a few at a time
 * (inflating runs on libuv's thread pool). Returns the first damage found (entry name and the
 * offset of its local header), or undefined when every entry checks. Throws `signal.reason`
 * when `signal` aborts, and read errors.
 */
export async function findZipDamage(
  file: FileHandle,
  signal?: AbortSignal,
): Promise<Damage | undefined> {
  // `.default`: module.exports of this CommonJS package, also in the CLI bundle (scripts/build.js)
  const { default: yauzl } = await import("yauzl");
  let zip: ZipFile;
  try {
    const size = (await file.stat()).size;
    zip = await yauzl.fromRandomAccessReaderPromise(
      handleReader(yauzl.RandomAccessReader, file),
      size,
      {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: false,
      },
    );
  } catch (err) {
    return { reason: `the ZIP structure does not parse: ${messageOf(err)}` };
  }
  try {
    const listed = await listEntries(zip);
    if ("reason" in listed) return listed;
    const entries = listed.sort(
      (a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader,
    );
    const check = (entry: Entry) => checkEntry(zip, file, entry, yauzl.parseExtraFields, signal);
    return await firstDamage(entries, check, Math.max(1, Math.min(4, availableParallelism())));
  } finally {
    zip.close();
  }
}

async function listEntries(zip: ZipFile): Promise<Entry[] | Damage> {
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (err) {
    return { reason: `the ZIP central directory does not parse: ${messageOf(err)}` };
  }
  return entries;
}

/** Runs `check` over `items` with at most `width` at once, in order; the first damage (by index) wins. */
async function firstDamage<T>(
  items: readonly T[],
  check: (item: T) => Promise<Damage | undefined>,
  width: number,
): Promise<Damage | undefined> {
  let next = 0;
  let found: { index: number; damage: Damage } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length && (found === undefined || next < found.index)) {
      const index = next++;
      const damage = await check(items[index] as T);
      if (damage && (found === undefined || index < found.index)) found = { index, damage };
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return found?.damage;
}

async function checkEntry(
  zip: ZipFile,
  file: FileHandle,
  entry: Entry,
  parseExtraFields: typeof import("yauzl").parseExtraFields,
  signal: AbortSignal | undefined,
): Promise<Damage | undefined> {
  signal?.throwIfAborted();
  const where = {
    entry: entry.fileNameRaw.toString("utf8"),
    offset: entry.relativeOffsetOfLocalHeader,
  };
  let local: LocalFileHeader;
  try {
    local = await zip.readLocalFileHeaderPromise(entry);
  } catch (err) {
    return { ...where, reason: `local header: ${messageOf(err)}` };
  }
  const mismatch = localMismatch(entry, local, parseExtraFields);
  if (mismatch)
    return { ...where, reason: `local header disagrees with the central directory: ${mismatch}` };
  // an encrypted entry's CRC-32 is of its plaintext: without a password there is nothing to
  // compare (and `--extract` refuses it); its header was checked above
  if (entry.isEncrypted()) return undefined;
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    return {
      ...where,
      reason: `compression method ${entry.compressionMethod} cannot be checked (only stored and deflate)`,
    };
  }
  const problem = await checkEntryData(file, {
    start: local.fileDataStart,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    deflated: entry.compressionMethod === 8,
    crc32: entry.crc32,
    signal,
  });
  return problem ? { ...where, reason: problem } : undefined;
}

function localMismatch(
  entry: Entry,
  local: LocalFileHeader,
  parseExtraFields: typeof import("yauzl").parseExtraFields,
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

/** The local header's sizes, from its ZIP64 extra field where the 32-bit fields say so. */
function localSizes(
  local: LocalFileHeader,
  parseExtraFields: typeof import("yauzl").parseExtraFields,
): { compressed: number; uncompressed: number } | undefined {
  let { compressedSize: compressed, uncompressedSize: uncompressed } = local;
  if (compressed !== UNKNOWN32 && uncompressed !== UNKNOWN32) return { compressed, uncompressed };
  let fields: ReturnType<typeof parseExtraFields>;
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

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
