import type { FileHandle } from "node:fs/promises";
import { availableParallelism } from "node:os";
import type { Entry, LocalFileHeader, ZipFile } from "yauzl";
import type { Damage } from "./damage.js";
import { handleReader } from "./handle-reader.js";
import { localMismatch } from "./local-header.js";
import { checkEntryData } from "./zip-entry-data.js";

/**
 * Checks a ZIP archive read through `file` against the checksums its publisher
 * put in it (cli-contract "Integrity"): the end-of-central-directory record (ZIP64 read as such)
 * and the central directory parse (yauzl); every entry's local header has the central record's
 * signature, name, compression method and, unless sizes follow in a data descriptor, CRC-32 and
 * sizes; every entry's data, inflated when deflated (stored and deflate; other methods are
 * damage; an encrypted entry's data is not checked: its CRC-32 is of the plaintext), has the recorded
 * uncompressed size and CRC-32 (`zlib.crc32`). The central directory is read `batchEntries`
 * records at a time (default 10,000), so memory stays bounded whatever count a hostile
 * directory claims; each batch is checked in file order, a few entries at a time (inflating
 * runs on libuv's thread pool). Returns the first damage found (of the first batch holding
 * any: entry name and the offset of its local header), or undefined when every entry checks.
 * Throws `signal.reason` when `signal` aborts, and read errors.
 */
export async function findZipDamage(
  file: FileHandle,
  signal?: AbortSignal,
  batchEntries = BATCH_ENTRIES,
): Promise<Damage | undefined> {
  const opened = await openArchive(file);
  if ("reason" in opened) return opened;
  const { yauzl, zip } = opened;
  try {
    const check = (entry: Entry) => checkEntry(zip, file, entry, yauzl.parseExtraFields, signal);
    const width = Math.max(1, Math.min(4, availableParallelism()));
    for await (const batch of entryBatches(zip, batchEntries)) {
      if ("reason" in batch) return batch;
      batch.sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
      const damage = await firstDamage(batch, check, width);
      if (damage) return damage;
    }
    return undefined;
  } finally {
    zip.close();
  }
}

/** Central-directory records {@link findZipDamage} holds at once. */
const BATCH_ENTRIES = 10_000;

/** yauzl's module (CommonJS `module.exports`), imported lazily. */
export type Yauzl = typeof import("yauzl");

/**
 * Opens the archive read through `file` with yauzl: only the end-of-central-directory record
 * (ZIP64 read as such) is read, entries are listed lazily ({@link listEntries}). Returns the
 * damage when that record does not parse. The caller closes the ZipFile (the handle stays open).
 */
export async function openArchive(
  file: FileHandle,
): Promise<{ yauzl: Yauzl; zip: ZipFile } | Damage> {
  // `.default`: module.exports of this CommonJS package, also in the CLI bundle (scripts/build.js)
  const { default: yauzl } = await import("yauzl");
  try {
    const size = (await file.stat()).size;
    const zip = await yauzl.fromRandomAccessReaderPromise(
      handleReader(yauzl.RandomAccessReader, file),
      size,
      {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: false,
      },
    );
    return { yauzl, zip };
  } catch (err) {
    return { reason: `the ZIP structure does not parse: ${messageOf(err)}` };
  }
}

/**
 * Every entry of the central directory, or the damage when it does not parse. Holds them all:
 * the caller bounds `zip.entryCount` first.
 */
export async function listEntries(zip: ZipFile): Promise<Entry[] | Damage> {
  for await (const batch of entryBatches(zip, Number.POSITIVE_INFINITY)) return batch;
  return [];
}

/**
 * The central directory's entries in batches of at most `size`, in directory order; a batch
 * that cannot be read whole is replaced by the damage (and nothing follows it).
 */
async function* entryBatches(zip: ZipFile, size: number): AsyncGenerator<Entry[] | Damage> {
  let batch: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      batch.push(entry);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  } catch (err) {
    yield { reason: `the ZIP central directory does not parse: ${messageOf(err)}` };
    return;
  }
  if (batch.length > 0) yield batch;
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

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
