import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import type { Entry, ZipFile } from "yauzl";
import { shownName } from "./entry-names.js";
import { extractFsError, unsafeArchive } from "./errors.js";
import type { CheckedEntry } from "./inspect.js";

/** What was written: relative POSIX paths of the files and of the folders, sorted. */
export interface WrittenTree {
  files: string[];
  dirs: string[];
}

/**
 * Writes every checked entry into `root` (a fresh, empty directory of ours): folders with mode
 * 0755, files created exclusively (`wx`, so nothing existing is followed or overwritten) with
 * mode 0644. Inflated bytes are held to each entry's declared size and CRC-32. Stops between entries when `signal` aborts.
 * Throws SvcError `unsafe_archive` (exit 7) for bytes that break the archive's own records,
 * FileSystemError (exit 8) for local failures, and the signal's reason.
 */
export async function writeEntries(
  archive: string,
  zip: ZipFile,
  entries: readonly CheckedEntry[],
  root: string,
  signal?: AbortSignal,
): Promise<WrittenTree> {
  const dirs = new Set<string>();
  const files: string[] = [];
  const ensureDir = (segments: readonly string[]): void => {
    for (let i = 1; i <= segments.length; i++) {
      const rel = segments.slice(0, i).join("/");
      if (dirs.has(rel)) continue;
      const path = join(root, ...segments.slice(0, i));
      try {
        mkdirSync(path, { mode: 0o755 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
          throw extractFsError(`cannot create ${path}`, err);
        }
      }
      dirs.add(rel);
    }
  };
  for (const checked of entries) {
    signal?.throwIfAborted();
    if (checked.directory || checked.entry === undefined) {
      ensureDir(checked.segments);
      continue;
    }
    ensureDir(checked.segments.slice(0, -1));
    const rel = checked.segments.join("/");
    await writeOne(archive, zip, checked.entry, join(root, ...checked.segments), rel);
    files.push(rel);
  }
  return { files: files.sort(), dirs: [...dirs].sort() };
}

async function writeOne(
  archive: string,
  zip: ZipFile,
  entry: Entry,
  path: string,
  rel: string,
): Promise<void> {
  let source: NodeJS.ReadableStream;
  try {
    source = await zip.openReadStreamPromise(entry);
  } catch (err) {
    const reason = `entry ${shownName(rel)} cannot be read (${(err as Error).message})`;
    throw unsafeArchive(archive, { kind: "corrupt", reason }, err);
  }
  const check = new EntryCheck(entry.uncompressedSize, entry.crc32);
  const out = createWriteStream(path, { flags: "wx", mode: 0o644 });
  try {
    await pipeline(source, check, out);
  } catch (err) {
    if (err instanceof Error && "syscall" in err) throw extractFsError(`cannot write ${path}`, err);
    const reason = `entry ${shownName(rel)}: ${(err as Error).message}`;
    throw unsafeArchive(archive, { kind: "corrupt", reason }, err);
  }
}

/**
 * Passes an entry's bytes through; fails as soon as they exceed the declared size (so a lying
 * header cannot fill the disk), and at the end when they fall short of it or their CRC-32
 * differs from the entry's.
 */
class EntryCheck extends Transform {
  private crc = 0;
  private bytes = 0;
  constructor(
    private readonly size: number,
    private readonly expected: number,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.size) {
      done(new Error(`the entry holds more than its declared ${this.size} bytes`));
      return;
    }
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    if (this.bytes !== this.size) {
      done(new Error(`the entry holds ${this.bytes} bytes, not its declared ${this.size}`));
      return;
    }
    if (this.crc >>> 0 !== this.expected >>> 0) {
      done(new Error("the bytes do not match the entry's CRC-32"));
      return;
    }
    done();
  }
}
