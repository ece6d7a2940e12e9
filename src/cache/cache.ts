import { randomUUID } from "node:crypto";
import { constants, copyFileSync, lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { durableRename } from "../io/durable.js";
import { hashRegularFileSync } from "../io/file-hash.js";
import { ensureOwnedDirs, openOwnedDir, ownedPath, removeOwned } from "../io/owned-dir.js";
import { checkPrivateDir } from "../io/safe-fs.js";
import { markUsed } from "./entries.js";
import { BY_HASH, CACHE_LAYOUT, cacheRefusals, SHA256, TMP } from "./layout.js";

/**
 * The download cache (cli-contract "Manifest, lock and cache"): verified files stored by
 * SHA-256 under `root`. Entries appear only by atomic rename of a complete, re-hashed temp file
 * with a unique name, so installs sharing one cache (two CI jobs on one runner) never see a
 * partial entry; entries are re-hashed whenever they are read, so a damaged or planted entry is
 * never used (it is removed). Copies use copy-on-write clones where the file system allows
 * (`COPYFILE_FICLONE`). The root is a directory svc-dl owns (src/io/owned-dir.ts: a
 * `CACHEDIR.TAG`, only the layout's names deleted, never re-moded unless created here), and no
 * path inside it is followed through a symlink.
 */
export class ContentCache {
  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /**
   * Opens the cache at `root` (absolute), creating it with mode 0700 and a `CACHEDIR.TAG` when
   * missing; an existing empty directory is adopted (tag written, mode untouched). Throws
   * FileSystemError (exit 8): `unsafe_cache_dir` when `root` or its `sha256/` or `tmp/` is a
   * symlink or not a directory, or `root` is owned by another user or writable by group or
   * others; `foreign_cache_dir` when `root` holds anything but lacks the tag (svc-dl did not
   * create it); a file-system code when it cannot be created.
   */
  static open(root: string): ContentCache {
    try {
      openOwnedDir(root, CACHE_LAYOUT, cacheRefusals(root, "use"));
    } catch (err) {
      if (err instanceof FileSystemError) throw err;
      throw cacheFsError(`cannot create the cache ${root}`, root, err);
    }
    return new ContentCache(root);
  }

  /**
   * The existing cache at `root` for {@link clean}, without creating or tagging anything;
   * undefined when `root` does not exist. Throws `unsafe_cache_dir` as {@link open} does.
   */
  static existing(root: string): ContentCache | undefined {
    const refusals = cacheRefusals(root, "clean");
    return checkPrivateDir(root, (problem) => refusals.unsafe(root, problem))
      ? new ContentCache(root)
      : undefined;
  }

  /** Path of the entry for `sha256` (lower-case hex). */
  entryPath(sha256: string): string {
    return join(this.root, BY_HASH, sha256.slice(0, 2), sha256);
  }

  /** {@link entryPath} when no component below the root is a symlink, else undefined. */
  private plainEntryPath(sha256: string): string | undefined {
    return ownedPath(this.root, [BY_HASH, sha256.slice(0, 2), sha256]);
  }

  /** True when an entry for `sha256` exists as a regular file (not verified; see {@link copyOut}). */
  has(sha256: string): boolean {
    const entry = SHA256.test(sha256) ? this.plainEntryPath(sha256) : undefined;
    if (entry === undefined) return false;
    try {
      return lstatSync(entry).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Copies the entry for `sha256` to `dest` (a new file; clone where possible) and re-hashes the
   * copy. Returns true when the copy has `size` bytes and that SHA-256; otherwise removes the copy
   * and returns false (a miss). An entry whose bytes do not hash to its name (truncated, flipped,
   * planted) is removed, and `onDamaged` hears a line naming it, so the caller's download refills
   * it (cli-contract "Integrity": a damaged entry never makes every later run fail); an entry of
   * another size than `size` whose bytes do hash to its name stays (the caller's size is a lock's
   * claim). Throws FileSystemError (exit 8) only when `dest` cannot be written.
   */
  copyOut(sha256: string, size: number, dest: string, onDamaged?: (line: string) => void): boolean {
    const entry = SHA256.test(sha256) ? this.plainEntryPath(sha256) : undefined;
    if (entry === undefined) return false;
    try {
      const st = lstatSync(entry);
      if (!st.isFile()) {
        if (!st.isDirectory()) rmSync(entry, { force: true });
        return false;
      }
      // Another size than the caller's (a lock's claim) proves nothing against the entry: only
      // bytes that do not hash to its name condemn it (cli-contract: a lock is checked).
      if (st.size !== size) {
        const own = hashRegularFileSync(entry);
        if (own !== undefined && own.sha256 !== sha256) dropDamaged(entry, sha256, onDamaged);
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
    const copied = hashRegularFileSync(dest);
    if (copied?.sha256 === sha256 && copied.bytes === size) {
      markUsed(entry); // what `cache prune --max-age` measures
      return true;
    }
    rmSync(dest, { force: true });
    if (copied !== undefined && copied.sha256 !== sha256) dropDamaged(entry, sha256, onDamaged);
    return false;
  }

  /**
   * Stores the file at `src` as the entry for `sha256`, unless an entry of the same size exists
   * (one of another size cannot hash to its name: it is replaced): clones `src` to a unique temp
   * name, re-hashes the copy, and renames it into place only when it matches. Returns true when
   * an entry now exists. Never throws: a cache that cannot be written only costs requests later
   * (`onProblem` hears why).
   */
  store(src: string, sha256: string, onProblem?: (line: string) => void): boolean {
    if (!SHA256.test(sha256)) return false;
    if (this.sameSizeEntry(sha256, src)) return true;
    const refusals = cacheRefusals(this.root, "use");
    let tmp: string | undefined;
    try {
      const dir = ensureOwnedDirs(this.root, [BY_HASH, sha256.slice(0, 2)], refusals);
      tmp = join(ensureOwnedDirs(this.root, [TMP], refusals), `${randomUUID()}.tmp`);
      copyFileSync(src, tmp, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
      if (hashRegularFileSync(tmp)?.sha256 !== sha256) {
        rmSync(tmp, { force: true });
        onProblem?.(`not cached: ${src} changed while it was being copied`);
        return false;
      }
      durableRename(tmp, join(dir, sha256)); // src/io/durable.ts
      return true;
    } catch (err) {
      if (tmp !== undefined) rmSync(tmp, { force: true });
      onProblem?.(`could not write to the cache ${this.root}: ${(err as Error).message}`);
      return false;
    }
  }

  /** True when the entry for `sha256` is a regular file of the size of the file at `src`. */
  private sameSizeEntry(sha256: string, src: string): boolean {
    const entry = this.plainEntryPath(sha256);
    try {
      const st = entry === undefined ? undefined : lstatSync(entry);
      return st?.isFile() === true && st.size === lstatSync(src).size;
    } catch {
      return false;
    }
  }

  /**
   * Empties the cache: removes every entry and temp file its layout names (the root and its
   * `CACHEDIR.TAG` stay). Returns the entries removed. Throws FileSystemError (exit 8):
   * `foreign_cache_dir` naming an entry svc-dl did not write (a root without the tag holding
   * anything, a stray file, a symlink), with nothing deleted; `permission_denied` when the
   * cache cannot be changed (read-only), after what could be removed.
   */
  clean(): number {
    try {
      return removeOwned(
        this.root,
        CACHE_LAYOUT,
        cacheRefusals(this.root, "clean"),
        (path) => path[0] === BY_HASH,
      );
    } catch (err) {
      if (err instanceof FileSystemError) throw err;
      throw cacheFsError(`cannot clean the cache ${this.root}`, this.root, err);
    }
  }
}

/** Removes a damaged entry and says so (its name is lower-case hex: nothing to escape). */
function dropDamaged(entry: string, sha256: string, onDamaged?: (line: string) => void): void {
  rmSync(entry, { force: true });
  onDamaged?.(
    `removed the cache entry ${sha256}: its bytes do not hash to its name (damaged); fetching it again`,
  );
}

/**
 * A file-system failure on the cache as FileSystemError (`permission_denied` for EACCES,
 * EPERM, EROFS; `no_space`; else `write_failed`) whose hint is about the cache, not an output.
 */
function cacheFsError(what: string, root: string, err: unknown): FileSystemError {
  const base = fsError(what, err);
  const readOnly = (err as NodeJS.ErrnoException).code === "EROFS";
  const elsewhere = "point SVC_DL_CACHE_DIR at a directory you can write";
  const hint =
    base.code === "permission_denied"
      ? `${readOnly ? "The cache is on a read-only file system" : "You may not change the cache"}: ${elsewhere}${readOnly ? "" : `, or make ${root} writable`}.`
      : base.code === "no_space"
        ? `Free some disk space, or ${elsewhere}.`
        : `Check that ${root} can be a directory, or ${elsewhere}.`;
  return new FileSystemError(base.message, {
    code: base.code,
    hint,
    cause: err,
  });
}
