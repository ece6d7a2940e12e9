import { lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ContentCache } from "../cache/cache.js";
import { ExitCode } from "../errors/exit-codes.js";
import { SvcError } from "../errors/svc-error.js";
import { acquireDirLock } from "../outdir/lock.js";
import { STATE_DIR } from "../outdir/state.js";
import { classifyFailure, itemError } from "../sync/failure.js";
import { extractInstalledPack } from "./extract.js";
import type { ItemFetcher } from "./fetch-item.js";
import { itemKey, lockPathFor, readLock, writeLockIfChanged } from "./lockfile.js";
import { type Manifest, readManifest } from "./manifest.js";
import { describeItem, installFailedError, lockMismatchError, summarize } from "./outcome.js";
import { checkPlaceable, placeFromCache, placeVerified, takeLocal } from "./place.js";
import type { InstallDocument, InstallItemRef, InstallItemResult, LockItem } from "./types.js";

/** Options of {@link runInstall}. */
export interface InstallOptions {
  /** Absolute path of the manifest (`svc-dl.json`). */
  manifestPath: string;
  /** `--frozen`: never write the lock; drift from it is `lock_mismatch` (exit 9). */
  frozen: boolean;
  /** Absolute path of the cache directory; undefined with `--no-cache`. */
  cacheDir: string | undefined;
  /** `--extract`: extract every pack (as if each entry said `"extract": true`). */
  extract: boolean;
  /** `--wait-lock`: seconds to wait for another run's lock on `dir`; default 0 (exit 8 `locked`). */
  waitLock?: number | undefined;
  /** Cancels the lock wait and an extraction (the downloads stop with their client's signal). */
  signal?: AbortSignal | undefined;
}

/** What an install tells its caller while it runs (human output lives in the command). */
export interface InstallObserver {
  /** The manifest was read: `dir` and the number of items. */
  planned?(manifest: Manifest): void;
  /** An item is settled. */
  itemFinished?(result: InstallItemResult): void;
  /** A notice for stderr. */
  notice?(line: string): void;
}

/** An item settled successfully: its result and its lock entry. */
interface Settled {
  result: InstallItemResult;
  entry: LockItem | undefined;
}

/**
 * `svc-dl install` (cli-contract "Manifest, lock and cache"). Reads and validates the manifest
 * and `svc-dl.lock`; with `frozen`, an item the lock lacks fails at once (exit 9, no request).
 * Locks `dir`, then settles each item, one at a time, from the first place that has it:
 * 1. `dir` itself (the locked file, re-hashed; no request),
 * 2. the cache (the entry re-hashed as it is copied; no request),
 * 3. the network through the download engine (all download rules). Without `frozen` the engine
 *    writes into `dir` (a recorded file is re-validated with `If-None-Match`), and whatever the
 *    service serves becomes the new lock entry. With `frozen` it writes into
 *    `<dir>/.svc-dl/install-staging/` and the file moves into `dir` only when its SHA-256 and
 *    ETag equal the lock's; otherwise it is discarded and the item is a `lock-mismatch`.
 * Verified files are stored in the cache. Without `frozen`, when every item succeeded, the lock
 * is written (only if its text changes). The fetcher's HTTP client (and so the API key) is
 * built only when an item needs the network.
 *
 * Returns the `--json` document. Throws (`document` attached where there is one): UsageError
 * `invalid_manifest`/`invalid_lock` (exit 2); SvcError `lock_mismatch` (exit 9) naming each item;
 * SvcError `install_incomplete` (exit 1) when items failed; FileSystemError `locked` and other
 * exit-8 failures; errors that stop a run (account-level API codes, interruption).
 */
export async function runInstall(
  fetcher: ItemFetcher,
  opts: InstallOptions,
  observer: InstallObserver = {},
): Promise<InstallDocument> {
  const manifest = readManifest(opts.manifestPath);
  const lockPath = lockPathFor(manifest.path);
  const lock = readLock(lockPath);
  const locked = new Map((lock?.items ?? []).map((i) => [itemKey(i), i]));
  if (opts.frozen) {
    const missing = manifest.items.filter((i) => !locked.has(itemKey(i)));
    if (missing.length > 0) {
      throw lockMismatchError(
        lockPath,
        missing.map((i) => `${describeItem(i)} (${i.jsonPath}) is not in svc-dl.lock`),
      );
    }
  }
  observer.planned?.(manifest);
  const cache = opts.cacheDir !== undefined ? ContentCache.open(opts.cacheDir) : undefined;
  const dirLock = await acquireDirLock(manifest.dir, {
    waitSeconds: opts.waitLock ?? 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onWait: (line) => observer.notice?.(line),
  });
  const settled: Settled[] = [];
  try {
    for (const item of manifest.items) {
      const one = await settleItem(fetcher, manifest, item, locked.get(itemKey(item)), {
        ...opts,
        cache,
        notice: (line) => observer.notice?.(line),
      });
      settled.push(one);
      observer.itemFinished?.(one.result);
    }
  } finally {
    await dirLock.release();
  }
  const items = settled.map((s) => s.result);
  const doc: InstallDocument = {
    manifest: manifest.path,
    lock: lockPath,
    dir: manifest.dir,
    items,
    summary: summarize(items),
  };
  const mismatched = items.filter((i) => i.status === "lock-mismatch");
  if (mismatched.length > 0) {
    throw lockMismatchError(
      lockPath,
      mismatched.map((i) => `${describeItem(i)}: ${i.reason ?? "differs from svc-dl.lock"}`),
      doc,
    );
  }
  if (doc.summary.failed > 0) throw installFailedError(doc);
  if (!opts.frozen) {
    const entries = settled.flatMap((s) => (s.entry ? [s.entry] : []));
    await writeLockIfChanged(lockPath, entries);
  }
  return doc;
}

interface SettleContext extends InstallOptions {
  cache: ContentCache | undefined;
  notice: (line: string) => void;
}

/** Settles one item; an item-level failure becomes a `failed` result, anything else is thrown. */
async function settleItem(
  fetcher: ItemFetcher,
  manifest: Manifest,
  item: InstallItemRef,
  lock: LockItem | undefined,
  ctx: SettleContext,
): Promise<Settled> {
  try {
    const one = await obtain(fetcher, manifest.dir, item, lock, ctx);
    const entry = one.entry;
    if (!entry || one.result.status === "lock-mismatch" || item.kind !== "pack") return one;
    if (!item.extract && !ctx.extract) return one;
    const extracted = await extractInstalledPack({
      dir: manifest.dir,
      file: entry.file,
      sha256: entry.sha256,
      item,
      notice: ctx.notice,
      signal: ctx.signal,
    });
    return { ...one, result: { ...one.result, extracted } };
  } catch (err) {
    // No key at all (`no_api_key`, exit 3) fails every later download too: stop at once.
    if (!(err instanceof SvcError) || err.exitCode === ExitCode.auth) throw err;
    if (classifyFailure(err, "standard") === "stop") throw err;
    return {
      entry: undefined,
      result: {
        ...base(item),
        status: "failed",
        reason: null,
        path: null,
        bytes: null,
        sha256: null,
        source: null,
        error: itemError(err),
      },
    };
  }
}

/** Finds the bytes of one item in `dir`, the cache, or the network (see {@link runInstall}). */
async function obtain(
  fetcher: ItemFetcher,
  dir: string,
  item: InstallItemRef,
  lock: LockItem | undefined,
  ctx: SettleContext,
): Promise<Settled> {
  if (lock) {
    const local = await takeLocal(dir, item, lock);
    if (local) {
      ctx.cache?.store(join(dir, lock.file), lock.sha256, ctx.notice);
      return done(item, lock, dir, local, "local", "already in dir");
    }
    if (ctx.cache) {
      const placed = await placeFromCache(ctx.cache, dir, item, lock);
      if (placed) return done(item, lock, dir, placed, "cache", "copied from the cache");
    }
  }
  if (!ctx.frozen || !lock) {
    const r = await fetcher.download(item, dir);
    ctx.cache?.store(r.path, r.sha256, ctx.notice);
    const entry: LockItem = {
      kind: item.kind,
      slug: item.slug,
      edition: item.edition,
      file: r.file,
      size: r.bytes,
      etag: r.etag,
      sha256: r.sha256,
    };
    const why = lock ? "not in dir or the cache" : "not in svc-dl.lock yet";
    return done(item, entry, dir, r.status, "network", why);
  }
  // --frozen: fetch beside dir, check against the lock, only then put it into place.
  const staging = join(dir, STATE_DIR, "install-staging");
  removeIfNotDirectory(staging);
  checkPlaceable(dir, item, lock); // a conflict in dir costs no download
  const r = await fetcher.download(item, staging);
  const problems: string[] = [];
  if (r.sha256 !== lock.sha256) {
    problems.push(`served SHA-256 ${r.sha256} differs from the locked ${lock.sha256}`);
  }
  if (r.etag !== lock.etag)
    problems.push(`served ETag ${r.etag} differs from the locked ${lock.etag}`);
  if (problems.length > 0) {
    rmSync(r.path, { force: true });
    return {
      entry: undefined,
      result: {
        ...base(item),
        status: "lock-mismatch",
        reason: problems.join("; "),
        path: null,
        bytes: r.bytes,
        sha256: r.sha256,
        source: "network",
        error: null,
      },
    };
  }
  ctx.cache?.store(r.path, r.sha256, ctx.notice);
  const placed = await placeVerified(dir, item, lock, r.path);
  const status = r.status === "resumed" ? "resumed" : placed;
  return done(item, lock, dir, status, "network", "not in dir or the cache");
}

/** Removes whatever sits at `path` unless it is a plain directory (never follows a symlink). */
function removeIfNotDirectory(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) rmSync(path, { force: true });
  } catch {
    // absent: the engine creates it
  }
}

function done(
  item: InstallItemRef,
  entry: LockItem,
  dir: string,
  status: InstallItemResult["status"],
  source: InstallItemResult["source"],
  reason: string,
): Settled {
  return {
    entry,
    result: {
      ...base(item),
      status,
      reason,
      path: join(dir, entry.file),
      bytes: entry.size,
      sha256: entry.sha256,
      source,
      error: null,
    },
  };
}

function base(item: InstallItemRef): Pick<InstallItemResult, "kind" | "slug" | "edition"> {
  return { kind: item.kind, slug: item.slug, edition: item.edition };
}
