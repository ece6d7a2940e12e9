import type { ItemError } from "../documents/parts.js";
import type { VerifyDocument, VerifyDocumentItem } from "../documents/runs.js";
import type { HintContext } from "../errors/codes.js";
import { toSvcError } from "../errors/format.js";
import { UsageError } from "../errors/usage-error.js";
import type { FileProgress } from "../io/progress.js";
import type { Clock } from "../model.js";
import { OutputDir } from "../outdir/output-dir.js";
import { checkVerifiable, forgetMissing, type VerifyItem, verifyDir } from "../outdir/verify.js";
import type { Deadline } from "../pacing/deadline.js";
import { DeferralGate } from "../run/deferred.js";
import { itemError } from "../run/error.js";
import { classifyFailure } from "../run/failure.js";
import type { RunRecorder } from "../run/recorder.js";
import type { Services } from "../services.js";
import { deferredItem, toDocumentItem, verifyDocument } from "./document.js";
import { repairItems } from "./repair.js";

/** Options of {@link verifyRun}. */
export interface VerifyRunOptions {
  /** DIR, absolute. */
  dir: string;
  /** `--repair`: download changed, damaged and missing items again, then verify them. */
  repair?: boolean | undefined;
  /** `--forget-missing`: drop the records of recorded files that no longer exist. */
  forgetMissing?: boolean | undefined;
  /** `--wait-lock`: seconds to wait for another run's lock on DIR (repairs only); default 0. */
  waitLock?: number | undefined;
  /** Stops hashing and repairs (throws its reason). */
  signal?: AbortSignal | undefined;
  /** Times the lock wait; default the system clock. */
  clock?: Clock | undefined;
  /** `--max-duration`: files not hashed and repairs not finished at it are `deferred`. */
  deadline?: Deadline | undefined;
  /** What a failed repair's hint may name (the CLI's command); default none (a library call). */
  hints?: HintContext | undefined;
  /** The run's HTTP client and signal, built on first use: only a repair needs the network. */
  services: () => Promise<Pick<Services, "http" | "signal">>;
  /** The progress of repair downloads, built on first use; stopped after the repairs. */
  progress: () => Promise<FileProgress>;
}

/** What a verify run tells its caller while it runs (human output lives in the command). */
export interface VerifyObserver {
  /** An item's verdict is final (after its repair, if any). */
  final?(item: VerifyItem): void;
  /** A notice for stderr (the lock wait, the engine's retries). */
  notice?(line: string): void;
  /** A repair failed for a reason of this item only; the run goes on. */
  repairFailed?(item: VerifyItem, error: ItemError): void;
  /** The closing human line of a run stopped part-way (the run's summary line). */
  summaryLine?(doc: VerifyDocument): string;
}

/**
 * `svc-dl verify [DIR] [--repair | --forget-missing]` (cli-contract "verify", "Integrity",
 * "Operating unattended") for the CLI and the library alike: re-hashes every file the state
 * file of DIR records and compares size and SHA-256, then format-checks the files that match
 * (every ZIP entry's CRC-32, GLB structure), offline and reading nothing outside DIR. With
 * `repair`, every item that is changed, damaged or missing is downloaded again whatever its
 * size and modification time say, then verified (`repaired` when it now is ok); with
 * `forgetMissing`, the records of missing files are dropped (`forgotten`). `run` hears each
 * item once its verdict is final. With a `deadline`, files not hashed and repairs not finished
 * at it are settled `deferred` and the DeadlineError is thrown.
 *
 * Returns the `verify --json` document: every file ended `ok`, `repaired` or `forgotten` when
 * its `summary` counts no `changed`, `damaged` or `missing` (src/verify/document.ts `notOk`).
 * Throws UsageError (exit 2): `usage_error` for `repair` with `forgetMissing`, `dir_not_found`
 * when DIR does not exist or is not a directory;
 * FileSystemError `unsafe_state_dir` (exit 8), and with `repair`/`forgetMissing` the lock's
 * errors (`locked`), the engine's run-wide errors (no key, account-level API errors,
 * interruption) and `signal.reason`.
 */
export async function verifyRun(
  opts: VerifyRunOptions,
  run: RunRecorder,
  observer: VerifyObserver = {},
): Promise<VerifyDocument> {
  const { dir } = opts;
  const repair = opts.repair === true;
  if (repair && opts.forgetMissing === true) {
    throw new UsageError("repair and forget-missing cannot be combined");
  }
  const fixes = (i: VerifyItem) =>
    (repair && i.status !== "ok") || (opts.forgetMissing === true && i.status === "missing");
  const facts = { ...opts, deadline: opts.deadline !== undefined };
  // repair: the error of each item whose repair failed, by path (its document's `error`)
  const failed = repair ? new Map<string, ItemError>() : undefined;
  const documentItem = (i: VerifyItem) => toDocumentItem(i, failed);
  const { summaryLine } = observer;
  run.describe({
    document: (settled: VerifyDocumentItem[]) => verifyDocument(dir, settled, facts),
    ...(summaryLine ? { summaryLine: (doc: VerifyDocument) => summaryLine(doc) } : {}),
  });
  const settle = (item: VerifyItem): void => {
    run.settled(documentItem(item));
    observer.final?.(item);
  };
  checkVerifiable(dir);
  run.begin();
  const inspected = OutputDir.inspect(dir);
  const gate = new DeferralGate(opts.deadline);
  const early = (item: VerifyItem) => (fixes(item) ? undefined : settle(item));
  let items = await verifyDir(inspected, early, opts.signal, () => gate.defers());
  if (gate.stopped || (items.some(fixes) && gate.defers())) {
    // the deadline: files not hashed yet are deferred; no repair starts after it
    for (const item of items) {
      if (repair && fixes(item)) run.settled(deferredItem(dir, item.record, null));
      else if (fixes(item)) settle(item);
    }
    for (const record of inspected.records().slice(items.length)) {
      run.settled(deferredItem(dir, record));
    }
    throw gate.stopped;
  }
  if (items.some(fixes)) {
    items = await fixAll(opts, items, { failed, gate, fixes, settle, run, observer });
  }
  return verifyDocument(dir, items.map(documentItem), facts);
}

/** What {@link fixAll} needs of the run. */
interface FixContext {
  /** `repair`: the error of each item whose repair failed, by path; undefined to forget. */
  failed: Map<string, ItemError> | undefined;
  gate: DeferralGate;
  fixes: (item: VerifyItem) => boolean;
  settle: (item: VerifyItem) => void;
  run: RunRecorder;
  observer: VerifyObserver;
}

/**
 * Repairs or forgets the items `c.fixes` selects, DIR locked, settling each once its verdict is
 * final; returns every item with its final verdict. A deadline reached during the repairs
 * settles the repairs done, the one stopped at the deadline and those not started (both
 * `deferred`), then throws the DeadlineError.
 */
async function fixAll(
  opts: VerifyRunOptions,
  items: VerifyItem[],
  c: FixContext,
): Promise<VerifyItem[]> {
  const out = await OutputDir.open(opts.dir, {
    waitSeconds: opts.waitLock ?? 0,
    onWait: (l) => c.observer.notice?.(l),
    ...(opts.signal ? { signal: opts.signal } : {}),
    clock: opts.clock,
  });
  const done: VerifyItem[] = [];
  let notStarted = false;
  const beforeRepair = (): void => {
    notStarted = c.gate.defers();
    if (c.gate.stopped) throw c.gate.stopped;
  };
  try {
    const fixed = c.failed
      ? await repairAll(opts, out, items, c, { done, beforeRepair })
      : forgetMissing(out, items);
    await out.flush(); // a record reported forgotten is gone from the disk (throws exit 8)
    fixed.forEach((item, i) => {
      if (c.fixes(items[i] as VerifyItem)) c.settle(item);
    });
    return fixed;
  } catch (err) {
    const stopped = c.gate.stop(err); // anything but the deadline is rethrown as is
    items.forEach((item, i) => {
      if (!c.fixes(item)) return;
      if (i < done.length) c.settle(done[i] as VerifyItem);
      else {
        const running = i === done.length && !notStarted;
        c.run.settled(deferredItem(opts.dir, item.record, running ? itemError(stopped) : null));
      }
    });
    throw stopped;
  } finally {
    await out.close();
  }
}

async function repairAll(
  opts: VerifyRunOptions,
  out: OutputDir,
  items: VerifyItem[],
  c: FixContext,
  stop: { done: VerifyItem[]; beforeRepair: () => void },
): Promise<VerifyItem[]> {
  const { http: client, signal } = await opts.services();
  const progress = await opts.progress();
  const onNotice = c.observer.notice;
  try {
    return await repairItems(
      client,
      items,
      {
        out,
        progress,
        signal,
        ...(onNotice ? { onNotice } : {}),
        beforeRepair: stop.beforeRepair,
      },
      (item, err) => {
        if (classifyFailure(err, "standard") === "stop") return "stop";
        const error = itemError(toSvcError(err), opts.hints, item.record.kind);
        c.failed?.set(item.path, error);
        c.observer.repairFailed?.(item, error);
        return "continue";
      },
      stop.done,
    );
  } finally {
    progress.stop();
  }
}
