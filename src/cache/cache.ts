import { randomUUID } from "node:crypto";
import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { hashFile } from "../download/writer.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { durableRename } from "../io/durable.js";

/** Subdirectory of the cache holding files by SHA-256 (`sha256/ab/abcdef…`). */
const BY_HASH = "sha256";
/** Subdirectory for files being written (unique names; renamed into place when verified). */
const TMP = "tmp";
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The download cache (cli-contract "Manifest, lock and cache"): verified files stored by
 * SHA-256 under `root`. Entries appear only by atomic rename of a complete, re-hashed temp file
 * with a unique name, so installs sharing one cache (two CI jobs on one runner) never see a
 * partial entry; entries are re-hashed whenever they are read, so a damaged or planted entry is
 * never used (it is removed). Copies use copy-on-write clones where the file system allows
 * (`COPYFILE_FICLONE`). Nothing is followed through a symlink.
 */
export class ContentCache {
  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /**
   * Opens (creating with mode 0700) the cache at `root`, absolute. Throws FileSystemError
   * `unsafe_cache_dir` (exit 8) when `root` is a symlink, not a directory, owned by another
   * user, or writable by group or others; an exit-8 error when it cannot be created.
   */
  static open(root: string): ContentCache {
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new FileSystemError(`cannot create the cache ${root}: ${(err as Error).message}`, {
        code: "write_failed",
        hint: "Set SVC_DL_CACHE_DIR to a writable directory, or install without the cache (`svc-dl install --no-cache`).",
        cause: err,
      });
    }
    assertSafeDir(root);
    return new ContentCache(root);
  }

  /** Path of the entry for `sha256` (lower-case hex). */
  entryPath(sha256: string): string {
    return join(this.root, BY_HASH, sha256.slice(0, 2), sha256);
  }

  /** True when an entry for `sha256` exists as a regular file (not verified; see {@link copyOut}). */
  has(sha256: string): boolean {
    if (!SHA256.test(sha256)) return false;
    try {
      return lstatSync(this.entryPath(sha256)).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Copies the entry for `sha256` to `dest` (a new file; clone where possible) and re-hashes the
   * copy. Returns true when the copy has `size` bytes and that SHA-256; otherwise removes the copy
   * and the bad entry and returns false (a miss). Throws FileSystemError (exit 8) only when
   * `dest` cannot be written.
   */
  copyOut(sha256: string, size: number, dest: string): boolean {
    if (!SHA256.test(sha256)) return false;
    const entry = this.entryPath(sha256);
    try {
      const st = lstatSync(entry);
      if (!st.isFile() || st.size !== size) {
        if (!st.isDirectory()) rmSync(entry, { force: true });
        return false;
      }
    } catch {
      return false;
    }
    try {
      copyFileSync(entry, dest, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    } catch (err) {
      rmSync(dest, { force: true });
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false; // removed meanwhile
      throw new FileSystemError(
        `cannot copy from the cache to ${dest}: ${(err as Error).message}`,
        {
          code: "write_failed",
          cause: err,
        },
      );
    }
    const copied = hashFile(dest);
    if (copied.sha256 === sha256 && copied.bytes === size) return true;
    rmSync(dest, { force: true });
    rmSync(entry, { force: true });
    return false;
  }

  /**
   * Stores the file at `src` as the entry for `sha256`, unless one exists: clones it to a
   * unique temp name, re-hashes the copy, and renames it into place only when it matches.
   * Returns true when an entry now exists. Never throws: a cache that cannot be written only
   * costs requests later (`onProblem` hears why).
   */
  store(src: string, sha256: string, onProblem?: (line: string) => void): boolean {
    if (!SHA256.test(sha256)) return false;
    if (this.has(sha256)) return true;
    const entry = this.entryPath(sha256);
    const tmpDir = join(this.root, TMP);
    const tmp = join(tmpDir, `${randomUUID()}.tmp`);
    try {
      mkdirSync(join(this.root, BY_HASH, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
      mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
      assertPlainDir(join(this.root, BY_HASH, sha256.slice(0, 2)));
      assertPlainDir(tmpDir);
      copyFileSync(src, tmp, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
      if (hashFile(tmp).sha256 !== sha256) {
        rmSync(tmp, { force: true });
        onProblem?.(`not cached: ${src} changed while it was being copied`);
        return false;
      }
      durableRename(tmp, entry); // src/io/durable.ts
      return true;
    } catch (err) {
      rmSync(tmp, { force: true });
      onProblem?.(`could not write to the cache ${this.root}: ${(err as Error).message}`);
      return false;
    }
  }

  /** Empties the cache (every entry and temp file; the directory itself stays). Returns the entries removed. */
  clean(): number {
    let removed = 0;
    for (const name of readdirSync(this.root)) {
      if (name === BY_HASH) removed += countEntries(join(this.root, name));
      rmSync(join(this.root, name), { recursive: true, force: true });
    }
    return removed;
  }
}

function countEntries(dir: string): number {
  let n = 0;
  try {
    for (const sub of readdirSync(dir)) n += readdirSync(join(dir, sub)).length;
  } catch {
    // an odd layout: counted as far as it could be read
  }
  return n;
}

/** Refuses a symlink or a non-directory where the cache keeps a subdirectory. */
function assertPlainDir(path: string): void {
  const st = lstatSync(path);
  if (!st.isDirectory()) throw unsafe(path, "is not a plain directory (a symlink?)");
}

/**
 * Refuses a cache root that another user could tamper with: a symlink, not a directory, owned
 * by another user, or writable by group or others (as ssh refuses such files). Tightens the
 * mode of our own directory to 0700.
 */
function assertSafeDir(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) throw unsafe(path, "is a symlink");
  if (!st.isDirectory()) throw unsafe(path, "is not a directory");
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw unsafe(path, "is owned by another user");
  if ((st.mode & 0o022) !== 0) throw unsafe(path, "is writable by group or others");
  if ((st.mode & 0o777) !== 0o700) {
    try {
      chmodSync(path, 0o700);
    } catch {
      // readable by others is not a risk to integrity: entries are re-hashed when read
    }
  }
}

function unsafe(path: string, why: string): FileSystemError {
  return new FileSystemError(`refusing the cache ${path}: it ${why}`, {
    code: "unsafe_cache_dir",
    hint: "Point SVC_DL_CACHE_DIR at a directory only you can write, or install without the cache (`svc-dl install --no-cache`).",
  });
}
