import { join } from "node:path";
import { packSource } from "../api/download-source.js";
import { type PackCatalog, packCatalog } from "../api/pack-catalog.js";
import { downloadItem } from "../download/engine.js";
import { checkUpstream } from "../download/revalidate.js";
import type { HintContext } from "../errors/codes.js";
import type { SvcError } from "../errors/svc-error.js";
import type { HttpClient } from "../http/client.js";
import type { FileProgress } from "../io/progress.js";
import type { Clock } from "../model.js";
import { OutputDir } from "../outdir/output-dir.js";
import type { Deadline } from "../pacing/deadline.js";
import { DeferralGate } from "../run/deferred.js";
import { itemError } from "../run/error.js";
import { classifyFailure } from "../run/failure.js";
import { deferredResult } from "./deferred.js";
import { extractSynced } from "./extract-step.js";
import { type PlannedItem, planSync } from "./plan.js";
import { DEFAULT_MAX_DELETE, pruneStep } from "./prune.js";
import { type Selection, type SelectionResult, selectPacks } from "./select.js";
import { syncDocument } from "./summary.js";
import { syncTargets } from "./targets.js";
import type {
  EditionChoice,
  ItemError,
  SyncDocument,
  SyncItemResult,
  SyncReason,
  SyncStatus,
} from "./types.js";
import { readUnavailableMemo, rememberUnavailable } from "./unavailable-memo.js";

/** Options of {@link runSync}. */
export interface SyncOptions {
  /** DIR, absolute; created on the first download if missing. */
  dir: string;
  /** `--edition` (default `standard`). */
  edition: EditionChoice;
  /** `--refresh`: one conditional request (`If-None-Match`) per complete item. */
  refresh: boolean;
  /** `--dry-run`: no download, no lock, nothing written; with `refresh` the conditional requests are still made. */
  dryRun: boolean;
  /** `--checksum`: re-hash every recorded file and re-download any that differs (`repaired`). */
  checksum?: boolean;
  /** `--wait-lock`: seconds to wait for another run's lock on DIR; default 0. */
  waitLock?: number;
  /** `--extract`: unpack every complete pack ZIP into `<dir>/<file name without .zip>/` (src/sync/extract-step.ts). */
  extract?: boolean;
  /** `--include`/`--exclude`/`--category` (src/sync/select.ts); left-out packs are never requested. */
  selection?: Selection;
  /**
   * `--max-duration` (src/pacing/deadline.ts): no item that needs a request starts after it;
   * the one running at it and the rest are `deferred` (summary.deferred). The client's clock and
   * transfer pacing must carry the same deadline so that waits and transfers stop at it.
   */
  deadline?: Deadline;
  /** `--prune`/`--max-delete` (src/sync/prune.ts); default: such files are listed `not-owned`. */
  prune?: { prune: boolean; maxDelete: number; today: string };
  /** The run's abort signal (SIGINT/SIGTERM, the deadline): the lock wait, re-hashes, transfers and extraction stop at it. */
  signal?: AbortSignal | undefined;
  /** What a failed item's hint may name (the CLI's command); default: no command (a library call). */
  hints?: HintContext | undefined;
}

const PRUNE_OFF = { prune: false, maxDelete: DEFAULT_MAX_DELETE, today: "" };

const NO_SELECTION: Selection = { include: [], exclude: [], categories: [] };

/** What a sync tells its caller while it runs (human output lives in the command). */
export interface SyncObserver {
  /** The packs were listed and every item planned; `packs` is the number of owned packs. */
  planned?(plan: readonly PlannedItem[], packs: number): void;
  /**
   * An item that needs a request starts: `position` (1-based) among the `count` items that
   * need one, for the "pack 3/12" line.
   */
  itemStarted?(item: PlannedItem, position: number, count: number): void;
  /** An item is settled (every item, in plan order; failed items included). */
  itemFinished?(result: SyncItemResult, item: PlannedItem): void;
  /** A notice for stderr (restarts, refreshed CDN links). */
  notice?(line: string): void;
  /**
   * `--prune` was asked for but moves nothing: the listing contradicts itself (items seen
   * against its `total`, a slug listed twice); `line` says why. The files stay `not-owned`.
   */
  pruneRefused?(line: string): void;
  /** The selection was applied (before planning); `warnings` name globs that match nothing owned. */
  selected?(result: SelectionResult): void;
}

/**
 * `packs sync` (cli-contract "packs sync"): makes DIR hold every owned pack edition.
 *
 * 1. Locks DIR (`<dir>/.svc-dl/lock`, exit 8 `locked` at once if another run holds it) unless
 *    `dryRun`. The lock is taken before any request, so an overlapping run touches nothing.
 * 2. Lists every owned pack (all pages, read budget) and plans each edition from the state
 *    file: complete items are skipped with no request; missing, truncated and new ones fetched.
 * 3. Works through the items one at a time with the one download engine
 *    (src/download/engine.ts `downloadItem`, with the lock held here), which resumes partial
 *    data, checks size and format, records SHA-256 and ETag, and paces itself by the download
 *    budget's rate-limit headers. With `refresh`, complete items get one conditional request
 *    (the engine's `If-None-Match`; the body of an unchanged file is never read; a changed one
 *    is downloaded afresh and replaces the old file only once complete). With `dryRun`, no
 *    download is made; with `dryRun` and `refresh`, `checkUpstream` makes the conditional
 *    request only, so "changed upstream" can be reported.
 *
 * Returns the `--json` document. Item-level failures are items with status `failed`.
 * Throws (ending the run at once, lock released): the listing's errors; FileSystemError
 * `locked`; for an item, every failure {@link classifyFailure} calls `stop` (account-level
 * codes, `insufficient_scope`, `rate_limited`, interruption, local file-system failures).
 */
export async function runSync(
  client: HttpClient,
  opts: SyncOptions,
  progress: FileProgress,
  observer: SyncObserver = {},
): Promise<SyncDocument> {
  const out = await openDir(opts, client.clock, observer);
  try {
    const catalog = packCatalog(client);
    const { items: listed, inconsistency } = await catalog.listing(); // every page, or a throw
    const selection = selectPacks(listed, opts.selection ?? NO_SELECTION);
    observer.selected?.(selection);
    const packs = selection.kept;
    const memo =
      opts.edition === "standard" ? new Map<string, string>() : readUnavailableMemo(opts.dir);
    const plan = await planSync(out, syncTargets(packs, opts.edition), {
      refresh: opts.refresh,
      checksum: opts.checksum === true,
      dryRun: opts.dryRun,
      noAuthoring: memo,
      signal: opts.signal,
    });
    if (!opts.dryRun) restampIntact(out, plan);
    observer.planned?.(plan, new Set(packs.map((p) => p.slug)).size);
    const count = plan.filter((p) => needsRequest(p, opts)).length;
    let position = 0;
    const items: SyncItemResult[] = [];
    const gate = new DeferralGate(opts.deadline);
    for (const item of plan) {
      let label: string | undefined;
      if (needsRequest(item, opts)) {
        if (gate.defers()) {
          items.push(deferredResult(item));
          observer.itemFinished?.(items.at(-1) as SyncItemResult, item);
          continue;
        }
        observer.itemStarted?.(item, ++position, count);
        label = `pack ${position}/${count}`;
      }
      let result: SyncItemResult;
      try {
        result = await settle({ client, catalog, out, opts, progress, observer }, item, label);
      } catch (err) {
        result = deferredResult(item, gate.stop(err));
      }
      if (opts.extract === true && !opts.dryRun && gate.stopped === undefined) {
        const notice = (l: string) => observer.notice?.(l);
        result = await extractSynced(opts.dir, result, notice, opts.signal, opts.hints);
      }
      items.push(result);
      observer.itemFinished?.(result, item);
    }
    if (gate.stopped === undefined) {
      const owned = new Set(listed.map((p) => p.slug));
      const prune = { ...PRUNE_OFF, ...opts.prune, dryRun: opts.dryRun };
      if (prune.prune && inconsistency !== undefined) {
        observer.pruneRefused?.(
          `not pruning: the service's listing of owned packs is not consistent (${inconsistency}); nothing was moved to the trash`,
        );
        prune.prune = false;
      }
      items.push(...(await pruneStep(out, owned, prune)));
    }
    if (!opts.dryRun && opts.edition !== "standard") {
      await rememberUnavailable(opts.dir, memo, items);
    }
    const facts = { filtered: selection.left.length, deadline: opts.deadline !== undefined };
    return syncDocument(opts.dir, items, facts);
  } finally {
    await out.close();
  }
}

/** DIR locked for the run (exit 8 `locked`, or a wait with `--wait-lock`); only inspected with `dryRun`. */
async function openDir(
  opts: SyncOptions,
  clock: Clock,
  observer: SyncObserver,
): Promise<OutputDir> {
  if (opts.dryRun) return OutputDir.inspect(opts.dir);
  return OutputDir.open(opts.dir, {
    waitSeconds: opts.waitLock ?? 0,
    onWait: (line) => observer.notice?.(line),
    ...(opts.signal ? { signal: opts.signal } : {}),
    clock,
  });
}

/** Records the new mtime of files a re-hash found intact, so the next run need not hash them. */
function restampIntact(out: OutputDir, plan: readonly PlannedItem[]): void {
  for (const item of plan) {
    if (item.recorded && item.restamp !== undefined) out.restamp(item.recorded.file, item.restamp);
  }
}

/** Whether an item makes a request in this run (and so gets a "pack N/M" line). */
function needsRequest(item: PlannedItem, opts: SyncOptions): boolean {
  if (item.action === "revalidate") return true;
  return item.action === "fetch" && !opts.dryRun;
}

/** What every item of one sync is settled with. */
interface SyncRun {
  client: HttpClient;
  /** The listing of this run: the source of every pack's download URL (src/api/download-source.ts). */
  catalog: PackCatalog;
  out: OutputDir;
  opts: SyncOptions;
  progress: FileProgress;
  observer: SyncObserver;
}

/**
 * Settles one item: its result, or a throw for failures that stop the run. `label` (`pack N/M`)
 * gives the bar's overall position line (cli-contract "Streams and output").
 */
async function settle(
  run: SyncRun,
  item: PlannedItem,
  label: string | undefined,
): Promise<SyncItemResult> {
  const { client, out, opts, progress, observer } = run;
  const { target, recorded } = item;
  const recordedPath = recorded ? join(opts.dir, recorded.file) : null;
  const result = (
    status: SyncStatus,
    reason: SyncReason | null,
    file: FileFacts = {},
    error: ItemError | null = null,
  ): SyncItemResult => ({
    slug: target.slug,
    edition: target.edition,
    status,
    reason,
    path: file.path ?? null,
    bytes: file.bytes ?? null,
    sha256: file.sha256 ?? null,
    error,
  });
  const recordedFacts: FileFacts = recorded
    ? { path: recordedPath, bytes: recorded.size, sha256: recorded.sha256 }
    : {};

  if (item.action === "unavailable") return result("unavailable", item.reason);
  if (item.action === "skip") return result("up-to-date", item.reason, recordedFacts);
  if (item.action === "fetch" && opts.dryRun) {
    return result("would-download", item.reason, { path: recordedPath });
  }
  try {
    const source = await packSource(client, run.catalog, target.slug, target.edition);
    if (opts.dryRun && recorded) {
      const check = await checkUpstream(client, source, recorded, opts.signal);
      return check.status === "unchanged"
        ? result("up-to-date", "unchanged upstream", recordedFacts)
        : result("would-download", "changed upstream", { path: recordedPath });
    }
    const done = await downloadItem(client, {
      kind: "pack",
      slug: target.slug,
      edition: target.edition,
      source,
      out,
      revalidate: item.action === "revalidate",
      checksum: opts.checksum === true,
      progress,
      ...(label !== undefined ? { progressLabel: label } : {}),
      onNotice: (line) => observer.notice?.(line),
      signal: opts.signal,
    });
    const facts: FileFacts = { path: done.path, bytes: done.bytes, sha256: done.sha256 };
    const revalidated = item.action === "revalidate";
    if (done.status === "up-to-date") {
      return result("up-to-date", revalidated ? "unchanged upstream" : "already complete", facts);
    }
    return result(done.status, revalidated ? "changed upstream" : item.reason, facts);
  } catch (err) {
    const handling = classifyFailure(err, target.edition);
    if (handling === "stop") throw err;
    if (handling === "unavailable") return result("unavailable", "no authoring edition");
    return result("failed", item.reason, {}, itemError(err as SvcError, opts.hints));
  }
}

/** What is known of an item's file. */
interface FileFacts {
  path?: string | null;
  bytes?: number;
  sha256?: string;
}
