import { join, resolve } from "node:path";
import { toSvcError } from "../../errors/format.js";
import type { WarningCode } from "../../io/reporter.js";
import type { ItemError } from "../../model.js";
import { OutputDir } from "../../outdir/output-dir.js";
import type { StateItem } from "../../outdir/state.js";
import { checkVerifiable, forgetMissing, type VerifyItem, verifyDir } from "../../outdir/verify.js";
import { DeferralGate } from "../../run/deferred.js";
import { itemError } from "../../run/error.js";
import { classifyFailure } from "../../run/failure.js";
import type { RunRecorder } from "../../run/recorder.js";
import type { Session } from "../../session.js";
import type { RunOutputFlags } from "../command-kit.js";
import { recordRun, runSinks } from "../shared/record-run.js";
import { repairItems } from "./repair.js";

/** Options of `verify`. */
export interface VerifyOptions extends RunOutputFlags {
  /** `--repair`: download changed and missing items again, then verify them. */
  repair?: boolean;
  /** `--forget-missing`: drop the records of recorded files that no longer exist. */
  forgetMissing?: boolean;
}

/**
 * `svc-dl verify [DIR] [--repair]` (cli-contract "verify", "Operating unattended"): re-hashes
 * every file the state file of DIR (default `.`) records and compares size and SHA-256, with no
 * network, reading nothing outside DIR. Human: one line per file on stdout (`ok`, `changed`,
 * `missing`, `repaired` and the path), a summary on stderr naming the command that repairs.
 * `--json`: {@link verifyDocument}. With `--repair`, changed and missing items are downloaded
 * again (network and key needed), then verified; with `--forget-missing` the records of missing
 * files are dropped (`forgotten`). A run of the run layer (src/run/): `--report`, `--metrics`,
 * `--on-item` (after each item's verdict is final), the plain-log header and time stamps;
 * with `--max-duration`, files not hashed and repairs not finished at the deadline are
 * `deferred` (the repair stopped at it with `error` `deadline_reached`), exit 10.
 * Sets exit 1 when any file is still changed or missing; nothing recorded in an existing DIR is
 * exit 0 ("nothing recorded"). Throws UsageError `dir_not_found` (exit 2) when DIR does not
 * exist or is not a directory, FileSystemError `unsafe_state_dir` (exit 8), and with
 * `--repair`/`--forget-missing` the lock's errors (and the engine's run-wide errors).
 */
export async function runVerify(
  session: Session,
  dirArg: string | undefined,
  opts: VerifyOptions = {},
): Promise<void> {
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  const sinks = runSinks(opts);
  await recordRun(session, { command: "verify", dir, sinks }, (run) =>
    verifyInto(session, dir, opts, run),
  );
}

/** The body of {@link runVerify}: each item is settled in `run` once its verdict is final. */
async function verifyInto(
  session: Session,
  dir: string,
  opts: VerifyOptions,
  run: RunRecorder,
): Promise<void> {
  const json = session.globals.json;
  const repair = opts.repair === true;
  const fixes = (i: VerifyItem) => (repair && i.status !== "ok") || forgets(opts, i);
  const facts = { ...opts, deadline: session.deadline !== undefined };
  // --repair: the error of each item whose repair failed, by path (its document's `error`)
  const failed = repair ? new Map<string, ItemError>() : undefined;
  const documentItem = (i: VerifyItem) => toDocumentItem(i, failed);
  run.describe({
    document: (settled: VerifyDocumentItem[]) => verifyDocument(dir, settled, facts),
    summaryLine: (doc) => summary(dir, doc, false),
  });
  const settle = (item: VerifyItem): void => {
    run.settled(documentItem(item));
    if (json) return;
    // -q: only the files that are not ok (as `sha256sum --quiet`)
    if (!(session.globals.quiet && ok(item))) session.print(line(item));
    if (item.damage !== undefined) session.reporter.info(`${item.path}: ${item.damage}`);
  };
  checkVerifiable(dir);
  run.begin();
  const inspected = OutputDir.inspect(dir);
  const gate = new DeferralGate(session.deadline);
  const early = (item: VerifyItem) => (fixes(item) ? undefined : settle(item));
  let items = await verifyDir(inspected, early, session.ctx.signal, () => gate.defers());
  if (gate.stopped || (items.some(fixes) && gate.defers())) {
    // --max-duration: files not hashed yet are deferred; no repair starts after the deadline
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
    items = await fixAll(session, dir, items, { failed, gate, fixes, settle, run });
  }
  const doc = run.complete(verifyDocument(dir, items.map(documentItem), facts));
  const bad = doc.summary.changed + doc.summary.damaged + doc.summary.missing;
  if (json) session.printJson(doc);
  else session.reporter.info(summary(dir, doc, bad > 0 && !repair));
  if (bad > 0) session.exitCode = 1;
}

/** One item of the `verify --json` document. */
export interface VerifyDocumentItem {
  path: string;
  /** `deferred`: not hashed (or repaired) before `--max-duration` ended the run. */
  status: VerifyItem["status"] | "deferred";
  sha256: string | null;
  /** With `damaged`: what the format check found (the entry, its offset and what is wrong). */
  damage?: string;
  /** Size now in bytes; null when missing. */
  bytes: number | null;
  kind: StateItem["kind"];
  slug: string;
  edition: StateItem["edition"];
  /** With `--repair` only: why the item could not be repaired (as a failed sync item's), or null. */
  error?: ItemError | null;
}

/** Counts of the `verify --json` summary (`repaired`, `forgotten` with their flags). */
export interface VerifySummary {
  ok: number;
  changed: number;
  /** Files with their recorded bytes that fail the format checks (cli-contract "Integrity"). */
  damaged: number;
  missing: number;
  repaired?: number;
  forgotten?: number;
  deferred?: number;
}

/**
 * The `verify --json` document (cli-contract "JSON documents"): `{"dir","items":[{"path",
 * "status","sha256", "bytes","kind","slug","edition"}],"summary":{"ok","changed","missing"}}`,
 * the summary with `repaired` under `--repair`, `forgotten` under `--forget-missing` and
 * `deferred` under `--max-duration` (`deadline`).
 */
export function verifyDocument(
  dir: string,
  items: VerifyDocumentItem[],
  opts: VerifyOptions & { deadline?: boolean },
): { dir: string; items: VerifyDocumentItem[]; summary: VerifySummary } {
  const summary: VerifySummary = { ok: 0, changed: 0, damaged: 0, missing: 0 };
  if (opts.repair === true) summary.repaired = 0;
  if (opts.forgetMissing === true) summary.forgotten = 0;
  if (opts.deadline === true) summary.deferred = 0;
  for (const { status } of items) summary[status] = (summary[status] ?? 0) + 1;
  return { dir, items, summary };
}

/**
 * A recorded file `--max-duration` left for the next run; with `--repair`, `error` is the
 * deadline error when its repair was running at the deadline, null when it never started.
 */
function deferredItem(
  dir: string,
  record: StateItem,
  error?: ItemError | null,
): VerifyDocumentItem {
  const { kind, slug, edition } = record;
  const path = join(dir, record.file);
  const item = { path, status: "deferred" as const, sha256: null, bytes: null, kind, slug };
  return error === undefined ? { ...item, edition } : { ...item, edition, error };
}

/** What {@link fixAll} needs of the run. */
interface FixContext {
  /** `--repair`: the error of each item whose repair failed, by path; undefined to forget. */
  failed: Map<string, ItemError> | undefined;
  gate: DeferralGate;
  fixes: (item: VerifyItem) => boolean;
  settle: (item: VerifyItem) => void;
  run: RunRecorder;
}

/**
 * Repairs (`--repair`) or forgets (`--forget-missing`) the items `c.fixes` selects, DIR locked,
 * settling each once its verdict is final; returns every item with its final verdict. A
 * deadline reached during the repairs settles the repairs done, the one stopped at the
 * deadline and those not started (both `deferred`), then throws the DeadlineError.
 */
async function fixAll(
  session: Session,
  dir: string,
  items: VerifyItem[],
  c: FixContext,
): Promise<VerifyItem[]> {
  const { globals, reporter, ctx } = session;
  const out = await OutputDir.open(dir, {
    waitSeconds: globals.waitLock,
    onWait: (l) => reporter.info(l),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    clock: ctx.clock,
  });
  const done: VerifyItem[] = [];
  let notStarted = false;
  const beforeRepair = (): void => {
    notStarted = c.gate.defers();
    if (c.gate.stopped) throw c.gate.stopped;
  };
  try {
    const fixed = c.failed
      ? await repairAll(session, out, items, c.failed, { done, beforeRepair })
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
        c.run.settled(deferredItem(dir, item.record, running ? itemError(stopped) : null));
      }
    });
    throw stopped;
  } finally {
    await out.close();
  }
}

/** The document item of `i`; with `failed` (`--repair`), its `error` (null when none). */
function toDocumentItem(
  i: VerifyItem,
  failed: ReadonlyMap<string, ItemError> | undefined,
): VerifyDocumentItem {
  const { kind, slug, edition } = i.record;
  const found = { path: i.path, status: i.status, sha256: i.sha256, bytes: i.bytes };
  const item = { ...found, ...(i.damage !== undefined ? { damage: i.damage } : {}), kind, slug };
  return failed ? { ...item, edition, error: failed.get(i.path) ?? null } : { ...item, edition };
}

const ok = (item: VerifyItem): boolean => item.status === "ok";

function line(item: VerifyItem): string {
  return `${item.status.padEnd(8)} ${item.path}`;
}

const forgets = (opts: VerifyOptions, i: VerifyItem): boolean =>
  opts.forgetMissing === true && i.status === "missing";

function summary(
  dir: string,
  doc: { items: unknown[]; summary: VerifySummary },
  suggestRepair: boolean,
): string {
  if (doc.items.length === 0) return `nothing recorded in ${dir}`;
  const s = doc.summary;
  const parts = [`${s.ok} ok`, `${s.changed} changed`];
  if (s.damaged) parts.push(`${s.damaged} damaged`);
  parts.push(`${s.missing} missing`);
  if (s.repaired) parts.push(`${s.repaired} repaired`);
  if (s.forgotten) parts.push(`${s.forgotten} forgotten`);
  if (s.deferred) parts.push(`${s.deferred} deferred to the next run`);
  const n = doc.items.length;
  const head = `${n} recorded file${n === 1 ? "" : "s"}: ${parts.join(", ")}`;
  if (!suggestRepair) return head;
  const forget =
    s.missing > 0
      ? `, or \`svc-dl verify --forget-missing ${dir}\` to drop the records of files you deleted or renamed`
      : "";
  return `${head}; run \`svc-dl verify --repair ${dir}\` to download the changed, damaged and missing files again${forget}`;
}

async function repairAll(
  session: Session,
  out: OutputDir,
  items: VerifyItem[],
  failed: Map<string, ItemError>,
  stop: { done: VerifyItem[]; beforeRepair: () => void },
): Promise<VerifyItem[]> {
  const { reporter } = session;
  const { http: client, signal } = await session.services();
  const progress = await session.progress();
  try {
    const onNotice = (l: string) => reporter.info(l);
    return await repairItems(
      client,
      items,
      { out, progress, signal, onNotice, beforeRepair: stop.beforeRepair },
      (item, err) => {
        if (classifyFailure(err, "standard") === "stop") return "stop";
        const error = itemError(toSvcError(err), session.hints, item.record.kind);
        failed.set(item.path, error);
        reporter.warn(error.code as WarningCode, `cannot repair ${item.path}: ${error.message}`);
        if (error.hint) reporter.hint(error.hint);
        return "continue";
      },
      stop.done,
    );
  } finally {
    progress.stop();
  }
}
