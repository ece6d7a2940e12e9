import { statSync } from "node:fs";
import { resolve, sep } from "node:path";
import type { ItemError } from "../../documents/parts.js";
import { type GetManyDocument, getManyDocument, toJsonDocument } from "../../download/document.js";
import { type DownloadResult, type DownloadSource, downloadItem } from "../../download/engine.js";
import { DeadlineError } from "../../errors/interrupted-error.js";
import { SvcError } from "../../errors/svc-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { counted } from "../../io/plural.js";
import { resolveDestination } from "../../outdir/destination.js";
import { OutputDir } from "../../outdir/output-dir.js";
import type { ItemRef } from "../../outdir/state.js";
import { DeferralGate, deferredFields } from "../../run/deferred.js";
import { itemError } from "../../run/error.js";
import { classifyFailure, failedItemsHint } from "../../run/failure.js";
import type { RunRecorder } from "../../run/recorder.js";
import type { Services } from "../../services.js";
import type { Session } from "../../session.js";
import { type RunSinkOptions, recordRun } from "./record-run.js";

/** One item of a `get` with several slugs. */
export interface ManyItem {
  item: ItemRef;
  /** Finds the request (called when the item's turn comes, the directory locked). */
  source: () => Promise<DownloadSource>;
}

/** A `pack get a b c` / `asset get a b c` run (cli-contract "pack get", "asset get"). */
export interface GetManyRequest {
  items: ManyItem[];
  /** `-o PATH` as given: a directory, or none for the current one. */
  output: string | undefined;
  force: boolean;
  /** As GetRequest.afterDownload (`--extract`): runs with the lock held, joins the item's document. */
  afterDownload?: (result: DownloadResult) => Promise<Record<string, unknown>>;
  /** `pack get` or `asset get` (report, metrics). */
  command: string;
  /** `--report`, `--metrics`, `--on-item` (src/run/). */
  sinks?: RunSinkOptions;
}

/** A failed item of the several-slug `--json` document. */
interface FailedItem extends ItemRef {
  status: "failed";
  error: ItemError;
}

/** `3 items: 2 downloaded, 0 up to date, 1 failed` (the deferred and unsettled items too). */
function summaryLine(doc: GetManyDocument, total: number): string {
  const s = doc.summary;
  const parts = [`${s.downloaded} downloaded`, `${s.up_to_date} up to date`, `${s.failed} failed`];
  if (s.deferred) parts.push(`${s.deferred} deferred to the next run`);
  const unsettled = total - doc.items.length;
  if (unsettled > 0) parts.push(`${unsettled} not started`);
  return `${counted(total, "item")}: ${parts.join(", ")}`;
}

/**
 * Refuses, before anything is created or requested, a `-o` that cannot hold several files:
 * `-o -` (stdout) and `-o FILE` (not an existing directory, not ending in `/`).
 * Throws UsageError (exit 2).
 */
export function checkSeveralOutput(output: string | undefined, cwd: string): void {
  if (output === undefined) return;
  if (output === "-") {
    throw new UsageError("-o - takes one slug: several files cannot share stdout", {
      hint: "Give one slug with -o -, or a directory with -o DIR/.",
    });
  }
  const endsWithSlash = output.endsWith("/") || output.endsWith(sep);
  let isDir = false;
  try {
    isDir = statSync(resolve(cwd, output)).isDirectory();
  } catch {
    isDir = false;
  }
  if (!endsWithSlash && !isDir) {
    throw new UsageError(`-o ${output} names one file, but several slugs were given`, {
      hint: "With several slugs, -o takes a directory: end it with / (e.g. -o assets/).",
    });
  }
}

/**
 * Fetches several items one after another into one directory (cli-contract "pack get": several
 * slugs), the directory locked once for the run, with the one download engine. Each item gets
 * a start line ("pack 2/3 forest-pack") and its file line; a failed item is reported and the
 * rest go on; an account-level failure (any 401 code, `api_disabled`, `not_eligible`,
 * `blocked`) and every other failure `packs sync` stops on (src/run/failure.ts) end the run
 * at once. Prints the final paths on stdout (or the `--json` document
 * `{items, summary:{downloaded, up_to_date, failed}}`) and a summary line on stderr.
 * Throws SvcError `get_incomplete` (exit 1) when some items failed, UsageError for a bad `-o`,
 * FileSystemError `locked`, and the stopping failures.
 */
export async function runGetMany(
  session: Session,
  services: Services,
  req: GetManyRequest,
): Promise<GetManyDocument> {
  const dir = resolve(session.ctx.cwd, req.output ?? ".");
  const spec = { command: req.command, dir, sinks: req.sinks ?? {} };
  return recordRun(session, spec, (run) => getMany(session, services, req, run));
}

/** The body of {@link runGetMany}, feeding `run` with each settled item. */
async function getMany(
  session: Session,
  services: Services,
  req: GetManyRequest,
  run: RunRecorder,
): Promise<GetManyDocument> {
  const { ctx, globals, reporter } = session;
  const deadline = session.deadline !== undefined;
  // a stop part-way (a refused -o too) reports the items settled so far in the command's shape
  run.describe({
    document: (settled: GetManyDocument["items"]) => getManyDocument(settled, { deadline }),
    summaryLine: (doc) => summaryLine(doc, req.items.length),
  });
  checkSeveralOutput(req.output, ctx.cwd);
  const destination = resolveDestination(req.output, ctx.cwd);
  if (destination.kind !== "file") throw new UsageError("-o - takes one slug");
  const progress = await session.progress();
  const items: GetManyDocument["items"] = [];
  const failed: FailedItem[] = [];
  const out = await OutputDir.open(destination.dir, {
    waitSeconds: globals.waitLock,
    onWait: (line) => session.reporter.info(line),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    clock: ctx.clock,
  });
  run.begin();
  const gate = new DeferralGate(session.deadline);
  try {
    let position = 0;
    for (const { item, source } of req.items) {
      position += 1;
      if (gate.defers()) {
        run.settled({ ...item, ...deferredFields() });
        continue;
      }
      // no header line: the item's own line (progress or failure) carries the position
      const label = `${item.kind} ${position}/${req.items.length}`;
      try {
        const result = await downloadItem(services.http, {
          ...item,
          source: await source(),
          out,
          force: req.force,
          progress,
          progressLabel: label,
          onNotice: (line) => reporter.info(line),
          signal: services.signal,
        });
        const extra = req.afterDownload ? await req.afterDownload(result) : {};
        const settled = { ...toJsonDocument(result), ...extra };
        items.push(settled);
        run.settled(settled);
        if (!globals.json) session.print(result.path);
      } catch (err) {
        if (err instanceof DeadlineError) {
          run.settled({ ...item, ...deferredFields(gate.stop(err)) });
          continue;
        }
        if (services.signal?.aborted) throw err;
        if (classifyFailure(err, item.edition ?? "standard") === "stop") throw err;
        const { code } = err as SvcError;
        const error = itemError(err as SvcError, session.hints, item.kind);
        const entry: FailedItem = { ...item, status: "failed", error };
        failed.push(entry);
        items.push({ ...entry });
        run.settled(entry);
        const id = error.request_id === null ? "" : `, request id ${error.request_id}`;
        const message = `${label} ${item.slug}: ${error.message}`;
        reporter.warn(code, message, `${message} (${error.code}${id})`);
        if (error.hint) reporter.hint(error.hint);
      }
    }
  } finally {
    progress.stop();
    await out.close();
  }
  // stopped part-way: recordRun prints and writes every item ("complete": false, the error)
  if (gate.stopped) throw gate.stopped;
  return finish(session, req, run, getManyDocument(items, { deadline }), failed);
}

/**
 * The end of a complete several-slug run: the summary line, the `--json` document, and
 * SvcError `get_incomplete` (exit 1) when some items failed.
 */
function finish(
  session: Session,
  req: GetManyRequest,
  run: RunRecorder,
  doc: GetManyDocument,
  failed: readonly FailedItem[],
): GetManyDocument {
  const { globals, reporter } = session;
  reporter.info(summaryLine(doc, req.items.length));
  const full = run.complete(doc);
  if (globals.json) session.printJson(full);
  if (failed.length > 0) {
    const names = failed.map((f) => `${f.slug} (${f.error.code})`).join(", ");
    throw new SvcError(
      `${failed.length} of ${counted(req.items.length, "item")} failed: ${names}`,
      {
        code: "get_incomplete",
        hint: failedItemsHint(
          "get_incomplete",
          failed.map((f) => f.error),
        ),
        failures: failed.map((f) => ({ code: f.error.code, httpStatus: f.error.http_status })),
      },
    );
  }
  return full;
}
