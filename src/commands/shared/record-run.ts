import { resolve } from "node:path";
import { toSvcError } from "../../errors/format.js";
import type { SvcError } from "../../errors/svc-error.js";
import type { WarningCode } from "../../io/reporter.js";
import { runErrorOf } from "../../run/error.js";
import { RunFileWrites, writeReport } from "../../run/files.js";
import { clockTime, runHeader } from "../../run/log-time.js";
import { writeMetrics } from "../../run/metrics.js";
import { hookEnvWith, ItemHooks, runShellHook } from "../../run/on-item.js";
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
 * atomically; `GITHUB_STEP_SUMMARY` gets a Markdown table for `install` and `packs sync` (all
 * three through src/io/output-file.ts: a regular file or nothing).
 * Without a terminal on stderr (and without `--json`), the run begins with the header line
 * `svc-dl <version> <command> started <local ISO-8601 time>` and every later stderr line starts
 * with `HH:MM:SS ` (the context's clock), unless stderr is the systemd journal, which stamps
 * lines itself. A file that cannot be written (report, metrics, step
 * summary) fails a run that had succeeded: after the run's own outcome is printed, the first
 * such error is thrown (exit 8: `unsafe_output_path`, `write_failed`, `no_space`,
 * `permission_denied`) and any other is a warning; a run that had failed keeps its own exit code
 * and each such error is a warning (`output_not_written`). A failing `--on-item` or
 * `--on-done` hook is always a warning; `--on-done` runs last, told the exit code. Rethrows what `body` throws.
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
    // the journal stamps each line itself (cli-contract "Journald")
    const stamp = session.ctx.io.stderrIsJournal !== true;
    session.linePrefix = () => {
      const head = header ?? "";
      header = undefined;
      return stamp ? `${head}${clockTime(now())} ` : head;
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

/**
 * Builds the document and feeds every sink. Throws only the error of a file that could not be
 * written, and only when the run had succeeded (see {@link recordRun}).
 */
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
  if (failure && !run.isComplete && run.begun) {
    // a stop part-way: the command's own document (or closing line) of the items settled
    if (session.globals.json) session.printJson(doc);
    else {
      const line = run.summaryLine(doc);
      if (line !== undefined) session.reporter.info(line);
    }
  }
  const { ctx } = session;
  // One after the other, so each file tells the exit code the run will have: a report that
  // cannot be written makes a successful run exit 8, and its metrics say so.
  const files = new RunFileWrites(svcError?.exitCode ?? session.exitCode);
  const { report, metrics } = spec.sinks;
  if (report) {
    await files.write("--report file", async () => writeReport(ctx.cwd, report, doc));
  }
  if (metrics) {
    await files.write("--metrics file", async () =>
      writeMetrics(ctx.cwd, metrics, { run, doc, exitCode: files.exitCode, endedAt }),
    );
  }
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile && STEP_SUMMARY_COMMANDS.has(spec.command)) {
    await files.write("GITHUB_STEP_SUMMARY file", async () =>
      appendStepSummary(ctx.cwd, summaryFile, {
        command: spec.command,
        doc,
        exitCode: files.exitCode,
        seconds: (endedAt - run.startedAt) / 1e3,
      }),
    );
  }
  const { problems, exitCode } = files;
  // A run that had succeeded fails with the first problem (printed by main, after the run's own
  // outcome); a run that failed keeps its own code, and every problem is a warning.
  const [first, ...rest] = problems;
  const fails = first !== undefined && !failure && session.exitCode === 0;
  for (const p of fails ? rest : problems) warnRun(session, "output_not_written", p.message);
  if (spec.sinks.onDone) {
    await runDoneHook(session, spec, doc, fails ? first.exitCode : exitCode);
  }
  if (fails) throw first;
}

/**
 * `--on-done CMD` (cli-contract "Credentials, schedules and offline runs"): once the run has
 * ended, however it ended, CMD runs with `/bin/sh -c`, the run's JSON document on stdin and
 * `SVC_DL_EXIT_CODE`, `SVC_DL_COMMAND` and (with `--report`) `SVC_DL_REPORT` in its
 * environment, never a key; 60 s at most. Its failure is a warning and never changes the exit
 * code.
 */
async function runDoneHook(
  session: Session,
  spec: RunSpec,
  doc: RunDocument,
  exitCode: number,
): Promise<void> {
  const { ctx } = session;
  const command = spec.sinks.onDone ?? "";
  const vars: Record<string, string> = {
    SVC_DL_EXIT_CODE: String(exitCode),
    SVC_DL_COMMAND: spec.command,
  };
  if (spec.sinks.report) vars.SVC_DL_REPORT = resolve(ctx.cwd, spec.sinks.report);
  const problem = await runShellHook(command, doc, hookEnvWith(ctx.env, vars), {
    cwd: ctx.cwd,
    output: session.globals.json ? undefined : ctx.io.stderr,
  });
  if (problem) warnRun(session, "hook_failed", `--on-done ${problem}`);
}

/**
 * A warning of the run's own outputs (report, metrics, hook): a plain `warning:` line, or with
 * `--json` one JSON line `{"warning":{"code","message"}}` (stderr holds JSON lines only).
 */
export function warnRun(session: Session, code: WarningCode, message: string): void {
  session.reporter.warn(code, message);
}
