import { lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ContentCache } from "../cache/cache.js";
import { OutputDir } from "../outdir/output-dir.js";
import type { DownloadResult, ItemFetcher } from "./fetch-item.js";
import {
  type BytesOrigin,
  compareWithLock,
  describeDifferences,
  entryFromBytes,
  type FileFacts,
  heldBytesContradict,
  type LockDifference,
} from "./lock-compare.js";
import { checkPlaceable, placeFromCache, placeVerified, takeLocal } from "./place.js";
import type { InstallItemRef, InstallItemResult, InstallSource, LockItem } from "./types.js";

/** What settling one item needs besides the item (see `runInstall`). */
export interface ObtainContext {
  dir: string;
  /** `dir`, opened (and locked) for the run. */
  out: OutputDir;
  cache: ContentCache | undefined;
  /** `--update` names this item: re-fetch it and take what the service serves as its entry. */
  updating: boolean;
  notice: (line: string) => void;
}

/** An item settled: its result and the lock entry it leaves (undefined: none, e.g. a mismatch). */
export interface Settled {
  result: InstallItemResult;
  entry: LockItem | undefined;
}

/**
 * Finds the bytes of one item (cli-contract "Manifest, lock and cache"). With a lock entry (and
 * the item not named by `--update`): a file already in `dir` with the locked bytes, else a cache
 * copy, else a download into `<dir>/.svc-dl/install-staging/`; every one of them is compared
 * with the entry (src/install/lock-compare.ts) and a difference is a `lock-mismatch` result that
 * leaves `dir`, the cache and the entry untouched. Without an entry, the engine downloads into
 * `dir` and the served bytes make the entry; with `updating`, a fresh download (staged, so
 * neither `dir` nor the cache answers for the service) makes it. Throws what the fetcher and
 * src/install/place.ts throw.
 */
export async function obtain(
  fetcher: ItemFetcher,
  item: InstallItemRef,
  lock: LockItem | undefined,
  ctx: ObtainContext,
): Promise<Settled> {
  const { dir, out } = ctx;
  if (lock && !ctx.updating) {
    const held = heldBytesContradict(dir, lock, ctx.cache);
    if (held) return mismatch(item, held.diffs, held.origin, held.facts);
    const local = await takeLocal(out, item, lock);
    if (local) {
      ctx.cache?.store(join(dir, lock.file), lock.sha256, ctx.notice);
      return done(item, lock, dir, local, "local", "already in dir");
    }
    if (ctx.cache) {
      const placed = await placeFromCache(ctx.cache, out, item, lock, ctx.notice);
      const status = placed === "downloaded" ? "cached" : placed;
      if (status) return done(item, lock, dir, status, "cache", "copied from the cache");
    }
    checkPlaceable(out, item, lock); // a conflict in dir costs no download
    const r = await fetchStaged(fetcher, out, item);
    const diffs = compareWithLock(lock, factsOf(r));
    if (diffs.length > 0) {
      rmSync(r.path, { force: true });
      return mismatch(item, diffs, "served", factsOf(r));
    }
    return putInPlace(dir, item, lock, r, ctx, "not in dir or the cache");
  }
  if (!lock) {
    const r = await fetcher.download(item, out);
    ctx.cache?.store(r.path, r.sha256, ctx.notice);
    const entry = entryFromBytes(item, r.file, factsOf(r), r.etag);
    return done(item, entry, dir, r.status, "network", "not in svc-dl.lock yet");
  }
  // --update: what the service serves now becomes the entry.
  const r = await fetchStaged(fetcher, out, item);
  const entry = entryFromBytes(item, r.file, factsOf(r), r.etag);
  const same = compareWithLock(lock, factsOf(r)).length === 0;
  const why = same ? "re-fetched for --update: unchanged" : "re-fetched for --update: changed";
  const local = await takeLocal(out, item, entry);
  if (local) {
    ctx.cache?.store(r.path, r.sha256, ctx.notice);
    rmSync(r.path, { force: true });
    return done(item, entry, dir, local, "network", why);
  }
  const settled = await putInPlace(dir, item, entry, r, ctx, why);
  // A new version replacing the old file is a download, not a repair of a damaged file.
  if (!same && settled.result.status === "repaired") settled.result.status = "downloaded";
  return settled;
}

/** Downloads `item` into `<dir>/.svc-dl/install-staging/` (stable: a download resumes across runs). */
async function fetchStaged(
  fetcher: ItemFetcher,
  out: OutputDir,
  item: InstallItemRef,
): Promise<DownloadResult> {
  const stagingDir = join(out.stateDir, "install-staging");
  removeIfNotDirectory(stagingDir);
  // Covered by the lock of `out`, which contains it.
  const staging = await OutputDir.open(stagingDir, { lock: false });
  try {
    return await fetcher.download(item, staging);
  } finally {
    await staging.close();
  }
}

/** Stores the verified staged file in the cache, then moves it into `dir` as `entry.file`. */
async function putInPlace(
  dir: string,
  item: InstallItemRef,
  entry: LockItem,
  r: DownloadResult,
  ctx: ObtainContext,
  why: string,
): Promise<Settled> {
  ctx.cache?.store(r.path, r.sha256, ctx.notice);
  const placed = await placeVerified(ctx.out, item, entry, r.path);
  const status = r.status === "resumed" ? "resumed" : placed;
  return done(item, entry, dir, status, "network", why);
}

function factsOf(r: DownloadResult): FileFacts {
  return { size: r.bytes, sha256: r.sha256 };
}

/** Removes whatever sits at `path` unless it is a plain directory (never follows a symlink). */
function removeIfNotDirectory(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) rmSync(path, { force: true });
  } catch {
    // absent: the engine creates it
  }
}

/** A `lock-mismatch` result: nothing was put into `dir`; reports the bytes' own facts. */
function mismatch(
  item: InstallItemRef,
  diffs: readonly LockDifference[],
  origin: BytesOrigin,
  facts: FileFacts,
): Settled {
  const source: InstallSource =
    origin === "served" ? "network" : origin === "cached" ? "cache" : "local";
  return {
    entry: undefined,
    result: {
      ...base(item),
      status: "lock-mismatch",
      reason: describeDifferences(diffs, origin),
      path: null,
      bytes: facts.size,
      sha256: facts.sha256,
      source,
      error: null,
    },
  };
}

function done(
  item: InstallItemRef,
  entry: LockItem,
  dir: string,
  status: InstallItemResult["status"],
  source: InstallSource,
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

/** The key fields of an item's result. */
export function base(item: InstallItemRef): Pick<InstallItemResult, "kind" | "slug" | "edition"> {
  return { kind: item.kind, slug: item.slug, edition: item.edition };
}
