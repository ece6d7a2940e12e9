import { resolve } from "node:path";
import { counted } from "../../io/plural.js";
import type { RunRecorder } from "../../run/recorder.js";
import type { Session } from "../../session.js";
import * as report from "../../sync/report.js";
import { runSync } from "../../sync/run.js";
import { syncDocument } from "../../sync/summary.js";
import type { EditionChoice, SyncDocument, SyncItemResult } from "../../sync/types.js";
import type { RunOutputFlags } from "../command-kit.js";
import { recordRun, runSinks } from "../shared/record-run.js";

/** Options of `packs sync` (after parsing). */
export interface PacksSyncOptions extends RunOutputFlags {
  /** `--edition standard|authoring|all`; default `standard`. */
  edition: EditionChoice;
  /** `--refresh`: re-validate complete packs with one conditional request each. */
  refresh?: boolean;
  /** `--dry-run`: list what would be downloaded and why; no download, nothing written. */
  dryRun?: boolean;
  /** `--checksum`: re-hash every recorded file; re-download any that differs. */
  checksum?: boolean;
  /** `--extract`: unpack each complete pack ZIP into `DIR/<file name without .zip>/`. */
  extract?: boolean;
  /** `--prune`: move files recorded for packs no longer owned to DIR/.svc-dl/trash/<date>/. */
  prune?: boolean;
  /** `--max-delete N`: most files `--prune` moves (default 20). */
  maxDelete?: number;
  /** `--include GLOB`... (repeatable). */
  include?: string[];
  /** `--exclude GLOB`... (repeatable). */
  exclude?: string[];
  /** `--category NAME`... (repeatable). */
  category?: string[];
}

/**
 * `svc-dl packs sync [DIR] [--edition standard|authoring|all] [--refresh] [--include GLOB]...
 * [--exclude GLOB]... [--category NAME]... [--extract] [--dry-run]`
 * (cli-contract "packs sync"): makes DIR (default `.`) hold every owned pack, with the
 * one download engine, one file at a time, paced by the download budget. Human output on stderr
 * ("pack 3/12" above each file bar, one plain line per file without a TTY, a closing summary);
 * `--dry-run` prints its list on stdout; `--json` prints the contract's document on stdout.
 * Throws what `runSync` (src/sync/run.ts) throws; after a run with failed items,
 * an SvcError `sync_incomplete` (exit 1) naming each failed item with its code and request id.
 */
export async function runPacksSync(
  session: Session,
  dirArg: string | undefined,
  opts: PacksSyncOptions,
): Promise<void> {
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  const sinks = runSinks(opts);
  await recordRun(session, { command: "packs sync", dir, sinks }, async (run) => {
    run.head.dir = dir;
    await syncInto(session, dir, opts, run);
  });
}

/** What a sync knows of its items as it goes: left out, planned, started (pack files). */
interface SyncTally {
  filtered: number;
  planned: number;
  started: number;
}

/**
 * Gives `run` the sync's own document and closing line for a stop part-way (interrupt, full
 * disk), counting the pack files planned but not reached from the returned tally, which the
 * caller keeps up to date.
 */
function describeStop(
  run: RunRecorder,
  dir: string,
  dryRun: boolean,
  deadline: boolean,
): SyncTally {
  const tally: SyncTally = { filtered: 0, planned: 0, started: 0 };
  run.describe({
    document: (items: SyncItemResult[]) =>
      syncDocument(dir, items, {
        filtered: tally.filtered,
        deadline,
        notStarted: tally.planned - Math.max(tally.started, items.length),
      }),
    summaryLine: (doc) => report.summaryLine(doc, dryRun, tally),
  });
  return tally;
}

/** The body of {@link runPacksSync}: the run itself, feeding `run` with each settled item. */
async function syncInto(
  session: Session,
  dir: string,
  opts: PacksSyncOptions,
  run: RunRecorder,
): Promise<void> {
  const { globals, reporter } = session;
  const dryRun = opts.dryRun === true;
  const tally = describeStop(run, dir, dryRun, session.deadline !== undefined);
  const { http: client, signal } = await session.services();
  const progress = await session.progress();
  /** Packs owned before the selection (the observer's `planned` counts the packs taken). */
  let owned: number | undefined;
  const doc = await runSync(
    client,
    {
      dir,
      signal,
      edition: opts.edition,
      refresh: opts.refresh === true,
      dryRun,
      checksum: opts.checksum === true,
      waitLock: globals.waitLock,
      extract: opts.extract === true,
      prune: {
        prune: opts.prune === true,
        maxDelete: opts.maxDelete ?? 20,
        today: new Date(session.ctx.clock?.now() ?? Date.now()).toISOString().slice(0, 10),
      },
      selection: {
        include: opts.include ?? [],
        exclude: opts.exclude ?? [],
        categories: opts.category ?? [],
      },
      ...(session.deadline ? { deadline: session.deadline } : {}),
      hints: session.hints,
    },
    progress,
    {
      planned: (plan, kept) => {
        tally.planned = plan.length;
        run.begin();
        const packs = owned ?? kept;
        reporter.info(
          `${counted(packs, "pack")} owned, ${counted(plan.length, "pack file")} (edition ${opts.edition}) to keep in ${dir}`,
        );
      },
      itemStarted: (item, position, count) => {
        tally.started = position;
        reporter.info(report.itemStartLine(item, position, count));
      },
      itemFinished: (result) => {
        run.settled(result);
        const line = report.itemOutcomeLine(result);
        if (line !== undefined) reporter.info(line);
      },
      notice: (line) => reporter.info(line),
      pruneRefused: (line) => reporter.warn("prune_refused", line),
      selected: (selection) => {
        owned = selection.kept.length + selection.left.length;
        tally.filtered = selection.left.length;
        for (const line of selection.warnings) reporter.warn("selection_matches_nothing", line);
        if (selection.left.length > 0) {
          const kept = selection.kept.length;
          reporter.info(
            `selected ${counted(kept, "pack")}; left out ${selection.left.length}: ${selection.left.join(", ")}`,
          );
        }
      },
    },
  );
  finish(session, doc, dryRun, run);
}

/**
 * The end of a sync: a run stopped by `--max-duration` throws its error (recordRun prints and
 * writes the document, `"complete": false`); else the document or the human summary, and
 * SvcError `sync_incomplete` (exit 1) when some packs failed.
 */
function finish(session: Session, doc: SyncDocument, dryRun: boolean, run: RunRecorder): void {
  const { globals, reporter } = session;
  if (session.deadline && (doc.summary.deferred ?? 0) > 0) {
    // stopped part-way: recordRun prints and writes the document ("complete": false, the error)
    throw session.deadline.error();
  }
  const full = run.complete(doc);
  if (globals.json) {
    session.printJson(full);
  } else {
    if (dryRun) {
      const table = report.dryRunTable(doc);
      if (table !== undefined) session.print(table);
    }
    reporter.info(report.summaryLine(doc, dryRun));
    for (const item of doc.items) {
      if (item.status !== "failed" || !item.error) continue;
      const line = report.failureLine(item);
      reporter.warn("sync_incomplete", line, line);
      if (item.error.hint) reporter.hint(item.error.hint);
    }
    for (const i of doc.items.filter((i) =>
      /^(not-owned|would-prune|pruned|kept-modified)$/.test(i.status),
    )) {
      reporter.info(`  ${i.slug} (${i.edition}): ${i.status}, ${i.path}`);
    }
  }
  if (doc.summary.failed > 0) throw report.incompleteError(doc);
}
