import { toSvcError } from "../../errors/format.js";
import type { SvcError } from "../../errors/svc-error.js";
import type { WarningCode } from "../../io/reporter.js";
import { runErrorOf } from "../../run/error.js";
import { writeReport } from "../../run/files.js";
import { clockTime, runHeader } from "../../run/log-time.js";
import { writeMetrics } from "../../run/metrics.js";
import { ItemHooks } from "../../run/on-item.js";
import { type RunDocument, type RunError, RunRecorder } from "../../run/recorder.js";
import type { RunSinkOptions } from "../../run/sinks.js";
import { appendStepSummary } from "../../run/step-summary.js";
import type { Session } from "../../session.js";

export { type RunSinkOptions, runSinks } from "../../run/sinks.js";

/** What {@link recordRun} needs to know about the command. */
export interface RunSpec {
  /** `packs sync`, `install`, `pack get`, `asset get`. */
  command: string;
  /** The run's directory as far as known at the start (absolute). */
  dir: string;
  sinks: RunSinkOptions;
}

/** Commands that append to the GitHub Actions step summary (cli-contract "step summary"). */
const STEP_SUMMARY_COMMANDS = new Set(["install", "packs sync"]);

/**
 * Runs `body` with a {@link RunRecorder} and, on every exit (success, failure, interrupt),
 * hands the run's document to the sinks: a run that stopped part-way after it began prints,
 * with `--json`, the command's document of the items settled so far (its `RunShape`:
 * the same members and summary counters as a complete run) with `"complete": false` and
 * `"error": {…}` on stdout, else the command's closing summary line on stderr (a complete run
 * prints its own document and line); `--report` and `--metrics` files are written
 * atomically; `GITHUB_STEP_SUMMARY` gets a Markdown table for `install` and `packs sync`.
 * Without a terminal on stderr (and without `--json`), the run begins with the header line
 * `svc-dl <version> <command> started <local ISO-8601 time>` and every later stderr line starts
 * with `HH:MM:SS ` (the context's clock). A sink that fails is a warning on stderr: the run
 * keeps its own exit code. Rethrows what
 * `body` throws; never throws from a sink.
 */
export async function recordRun<T>(
  session: Session,
  spec: RunSpec,
  body: (run: RunRecorder) => Promise<T>,
): Promise<T> {
  const now = (): number => session.ctx.clock?.now() ?? Date.now();
  const run = new RunRecorder(spec.command, spec.dir, now());
  if (!session.ctx.io.stderrIsTTY && !session.globals.json) {
    // The header goes before the run's first line: a run refused before it says anything
    // (bad configuration) prints only its error line.
    let header: string | undefined =
      `${runHeader(session.ctx.version, spec.command, run.startedAt)}\n`;
    session.linePrefix = () => {
      const head = header ?? "";
      header = undefined;
      return `${head}${clockTime(now())} `;
    };
  }
  const hooks = spec.sinks.onItem
    ? new ItemHooks(spec.sinks.onItem, {
        env: session.ctx.env,
        cwd: session.ctx.cwd,
        output: session.globals.json ? undefined : session.ctx.io.stderr,
        warn: (message) => warnRun(session, "hook_failed", message),
      })
    : undefined;
  if (hooks) run.onSettled((item) => hooks.push(item));
  let failure: { err: unknown } | undefined;
  try {
    return await body(run);
  } catch (err) {
    failure = { err };
    throw err;
  } finally {
    await hooks?.drain();
    await finishRun(session, run, spec, failure, now());
  }
}

/** Builds the document and feeds every sink; never throws. */
async function finishRun(
  session: Session,
  run: RunRecorder,
  spec: RunSpec,
  failure: { err: unknown } | undefined,
  endedAt: number,
): Promise<void> {
  let svcError: SvcError | undefined;
  let error: RunError | undefined;
  if (failure) {
    svcError = toSvcError(failure.err);
    error = runErrorOf(svcError);
  }
  const doc: RunDocument = run.document(error);
  const exitCode = svcError?.exitCode ?? session.exitCode;
  if (failure && !run.isComplete && run.begun) {
    // a stop part-way: the command's own document (or closing line) of the items settled
    if (session.globals.json) session.printJson(doc);
    else {
      const line = run.summaryLine(doc);
      if (line !== undefined) session.reporter.info(line);
    }
  }
  const { ctx } = session;
  const tasks: Promise<void>[] = [];
  if (spec.sinks.report) {
    tasks.push(writeReport(ctx.cwd, spec.sinks.report as string, doc));
  }
  if (spec.sinks.metrics) {
    const facts = { run, doc, exitCode, endedAt };
    tasks.push(writeMetrics(ctx.cwd, spec.sinks.metrics as string, facts));
  }
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile && STEP_SUMMARY_COMMANDS.has(spec.command)) {
    const facts = {
      command: spec.command,
      doc,
      exitCode,
      seconds: (endedAt - run.startedAt) / 1e3,
    };
    tasks.push(appendStepSummary(summaryFile, facts));
  }
  const results = await Promise.allSettled(tasks);
  for (const r of results) {
    if (r.status === "rejected") {
      const reason = r.reason instanceof Error ? r.reason.message : String(r.reason);
      warnRun(session, "output_not_written", reason);
    }
  }
}

/**
 * A warning of the run's own outputs (report, metrics, hook): a plain `warning:` line, or with
 * `--json` one JSON line `{"warning":{"code","message"}}` (stderr holds JSON lines only).
 */
export function warnRun(session: Session, code: WarningCode, message: string): void {
  session.reporter.warn(code, message);
}
