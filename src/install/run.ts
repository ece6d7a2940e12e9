import { ContentCache } from "../cache/cache.js";
import type { HintContext } from "../errors/codes.js";
import { ExitCode } from "../errors/exit-codes.js";
import type { DeadlineError } from "../errors/interrupted-error.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { Clock } from "../model.js";
import { OutputDir } from "../outdir/output-dir.js";
import type { Deadline } from "../pacing/deadline.js";
import { DeferralGate, deferredFields } from "../run/deferred.js";
import { itemError } from "../run/error.js";
import { classifyFailure } from "../run/failure.js";
import { extractInstalledPack } from "./extract.js";
import type { ItemFetcher } from "./fetch-item.js";
import { lockChanges } from "./lock-compare.js";
import { itemKey, lockPathFor, readLock, writeLockIfChanged } from "./lockfile.js";
import { type Manifest, readManifest } from "./manifest.js";
import { base, type ObtainContext, obtain, type Settled } from "./obtain.js";
import {
  installDocument,
  installFailedError,
  lockLacksItemsError,
  lockMismatchError,
} from "./outcome.js";
import type { InstallDocument, InstallItemRef, InstallItemResult, LockItem } from "./types.js";

/** Options of {@link runInstall}. */
export interface InstallOptions {
  /** Absolute path of the manifest (`svc-dl.json`). */
  manifestPath: string;
  /** `--frozen`: never write the lock; drift from it is `lock_mismatch` (exit 9). */
  frozen: boolean;
  /**
   * `--update [SLUG...]`: re-fetch these items (every item for `true`; none when undefined or
   * false) and rewrite their lock entries with what the service serves. Not with `frozen`.
   */
  update?: boolean | readonly string[] | undefined;
  /** Absolute path of the cache directory; undefined with `--no-cache`. */
  cacheDir: string | undefined;
  /** `--extract`: extract every pack (as if each entry said `"extract": true`). */
  extract: boolean;
  /** `--wait-lock`: seconds to wait for another run's lock on `dir`; default 0 (exit 8 `locked`). */
  waitLock?: number | undefined;
  /** Cancels the lock wait and an extraction (the downloads stop with their client's signal). */
  signal?: AbortSignal | undefined;
  /** The run's clock, which times the lock wait; default the system clock. */
  clock?: Clock | undefined;
  /**
   * `--max-duration`: no item starts after it; the item running at it and those not started
   * are `deferred`, then the deadline error is thrown (cli-contract "Operating unattended").
   */
  deadline?: Deadline | undefined;
  /** What a failed item's hint may name (the CLI's command); default: no command (a library call). */
  hints?: HintContext | undefined;
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

/**
 * `svc-dl install` (cli-contract "Manifest, lock and cache"). Reads and validates the manifest
 * and `svc-dl.lock`; with `frozen`, items the lock lacks fail the run at once (exit 9, no
 * request). Locks `dir`, then settles each item, one at a time (src/install/obtain.ts): a locked
 * item from `dir`, the cache or the network, its bytes compared with its entry (a difference is
 * a `lock-mismatch` item, never a rewritten entry); an item the lock lacks, or one named by
 * `update`, from the service, its bytes making the entry. Verified files are stored in the
 * cache. Without `frozen`, when every item succeeded, the lock is written (only if its text
 * changes: entries added, updated, and removed for items no longer declared), and the document's
 * `lock_changes` lists what changed. The fetcher's HTTP client (and so the API key) is built
 * only when an item needs the network.
 *
 * Returns the `--json` document. Throws (`document` attached): UsageError
 * `invalid_manifest`/`invalid_lock`, or `usage_error` for an `update` slug the manifest does
 * not declare (exit 2); SvcError `lock_mismatch` (exit 9) naming each item and field;
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
  const lockItems = readLock(lockPath)?.items ?? [];
  const locked = new Map(lockItems.map((i) => [itemKey(i), i]));
  const updating = updateSelector(manifest, opts.update, opts.frozen);
  const document = (items: InstallItemResult[]): InstallDocument =>
    installDocument(manifest, items, { deadline: opts.deadline !== undefined });
  if (opts.frozen) {
    const missing = manifest.items.filter((i) => !locked.has(itemKey(i)));
    if (missing.length > 0) {
      const doc = document(missing.map(notInLock));
      throw lockLacksItemsError(lockPath, missing, doc);
    }
  }
  observer.planned?.(manifest);
  const cache = opts.cacheDir !== undefined ? ContentCache.open(opts.cacheDir) : undefined;
  const out = await OutputDir.open(manifest.dir, {
    waitSeconds: opts.waitLock ?? 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
    clock: opts.clock,
    onWait: (line) => observer.notice?.(line),
  });
  const settled: Settled[] = [];
  const gate = new DeferralGate(opts.deadline);
  try {
    for (const item of manifest.items) {
      if (gate.defers()) {
        settled.push(deferred(item));
        observer.itemFinished?.(settled.at(-1)?.result as InstallItemResult);
        continue;
      }
      const ctx: SettleContext = {
        dir: manifest.dir,
        out,
        cache,
        updating: updating(item),
        extract: opts.extract,
        signal: opts.signal,
        notice: (line) => observer.notice?.(line),
        hints: opts.hints,
      };
      const one = await settleItem(fetcher, item, locked.get(itemKey(item)), ctx).catch(
        (err: unknown) => deferred(item, gate.stop(err)),
      );
      settled.push(one);
      observer.itemFinished?.(one.result);
    }
  } finally {
    await out.close();
  }
  // stopped part-way: the caller's run document lists every item, the rest deferred
  if (gate.stopped) throw gate.stopped;
  const doc = document(settled.map((s) => s.result));
  const mismatched = doc.items.filter((i) => i.status === "lock-mismatch");
  if (mismatched.length > 0) throw lockMismatchError(lockPath, mismatched, doc);
  if (doc.summary.failed > 0) throw installFailedError(doc);
  if (!opts.frozen) {
    const entries = settled.flatMap((s) => (s.entry ? [s.entry] : []));
    if (await writeLockIfChanged(lockPath, entries)) {
      doc.lock_changes = lockChanges(lockItems, entries, itemKey);
    }
  }
  return doc;
}

/**
 * Which items `--update` names: all for `true`, those with a listed slug for a list. Throws
 * UsageError (exit 2) with `frozen`, and for a listed slug that the manifest does not declare.
 */
function updateSelector(
  manifest: Manifest,
  update: InstallOptions["update"],
  frozen: boolean,
): (item: InstallItemRef) => boolean {
  if (update === undefined || update === false) return () => false;
  if (frozen) throw new UsageError("--frozen and --update cannot be combined");
  if (update === true || update.length === 0) return () => true;
  const declared = new Set(manifest.items.map((i) => i.slug));
  const unknown = update.filter((slug) => !declared.has(slug));
  if (unknown.length > 0) {
    throw new UsageError(
      `--update names ${unknown.join(", ")}, which ${manifest.path} does not declare`,
      { hint: "Give slugs the manifest declares, or `--update` alone to update every item." },
    );
  }
  const named = new Set(update);
  return (item) => named.has(item.slug);
}

/** An item `--max-duration` left for the next run (`stopped`: it was running at the deadline). */
function deferred(item: InstallItemRef, stopped?: DeadlineError): Settled {
  return {
    entry: undefined,
    result: { ...base(item), reason: null, source: null, ...deferredFields(stopped) },
  };
}

/** The result of an item that `--frozen` found missing from the lock. */
function notInLock(item: InstallItemRef): InstallItemResult {
  return {
    ...base(item),
    status: "lock-mismatch",
    reason: `not in svc-dl.lock (${item.jsonPath})`,
    path: null,
    bytes: null,
    sha256: null,
    source: null,
    error: null,
  };
}

interface SettleContext extends ObtainContext {
  extract: boolean;
  hints?: HintContext | undefined;
  signal?: AbortSignal | undefined;
}

/** Settles one item; an item-level failure becomes a `failed` result, anything else is thrown. */
async function settleItem(
  fetcher: ItemFetcher,
  item: InstallItemRef,
  lock: LockItem | undefined,
  ctx: SettleContext,
): Promise<Settled> {
  try {
    const one = await obtain(fetcher, item, lock, ctx);
    const entry = one.entry;
    if (!entry || one.result.status === "lock-mismatch" || item.kind !== "pack") return one;
    if (!item.extract && !ctx.extract) return one;
    const extracted = await extractInstalledPack({
      dir: ctx.dir,
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
        error: itemError(err, ctx.hints, item.kind),
      },
    };
  }
}
