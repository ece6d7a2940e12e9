/**
 * The one SHA-256 file hasher, sync and async, with the rules of safe-fs.ts: never through a
 * symlink, never blocked by a FIFO, undefined for a path that is missing or not a regular file.
 */
import { createHash } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { isNotRegular, openRegular, READ_NO_FOLLOW } from "./safe-fs.js";

/** SHA-256 (lower-case hex) and size in bytes of a file's content. */
export type FileDigest = { sha256: string; bytes: number };

/**
 * A second reader of the blocks a hash reads (a format check that reads the file front to
 * back, so the file is read once for both): `block` is the file's bytes at `offset`, blocks in
 * order from 0; borrowed until the call returns or the promise it returns settles. Throwing or
 * rejecting stops the hashing with that error.
 */
export type BlockReader = (block: Buffer, offset: number) => void | Promise<void>;

/**
 * SHA-256 and size of a regular file, read in 1 MiB blocks with asynchronous reads (so
 * SIGINT/SIGTERM are seen between blocks), never through a symlink; each block is also handed
 * to `alsoRead` when given. Returns undefined when `path` is missing or not a regular file.
 * Throws `signal.reason` when `signal` aborts, read errors, and what `alsoRead` throws. The one
 * file hasher: {@link hashRegularFileSync} is its blocking form.
 */
export async function hashRegularFile(
  path: string,
  signal?: AbortSignal,
  alsoRead?: BlockReader,
): Promise<FileDigest | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_NO_FOLLOW);
  } catch (err) {
    if (isNotRegular(err)) return undefined;
    throw err;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const hash = createHash("sha256");
    const block = Buffer.allocUnsafe(1 << 20);
    let bytes = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(block, 0, block.length, bytes);
      if (bytesRead === 0) break;
      const read = block.subarray(0, bytesRead);
      hash.update(read);
      await alsoRead?.(read, bytes);
      bytes += bytesRead;
    }
    return { sha256: hash.digest("hex"), bytes };
  } finally {
    await handle.close();
  }
}

/**
 * {@link hashRegularFile} with blocking reads, for callers that are synchronous (the cache,
 * lock comparison). Same rules: never through a symlink; undefined when missing or not a
 * regular file; throws read errors.
 */
export function hashRegularFileSync(path: string): FileDigest | undefined {
  const opened = openRegular(path);
  if (opened === undefined) return undefined;
  try {
    const hash = createHash("sha256");
    const block = Buffer.allocUnsafe(1 << 20);
    let bytes = 0;
    for (;;) {
      const n = readSync(opened.fd, block, 0, block.length, bytes);
      if (n === 0) break;
      hash.update(block.subarray(0, n));
      bytes += n;
    }
    return { sha256: hash.digest("hex"), bytes };
  } finally {
    closeSync(opened.fd);
  }
}
