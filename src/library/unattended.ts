import { toSvcError } from "../errors/format.js";
import type { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { Clock } from "../model.js";
import { Deadline } from "../pacing/deadline.js";
import { durationSeconds, MIN_RATE_BYTES_PER_SECOND, rateBytesPerSecond } from "../pacing/units.js";
import { runErrorOf } from "../run/error.js";
import { RunFileWrites, writeReport } from "../run/files.js";
import { RunRecorder, type ShapedDocument } from "../run/recorder.js";
import type { RunPacingSettings } from "../services.js";
import type { PacingOptions } from "./types.js";

/** The pacing settings (rate, deadline, clock, signal) of one library operation, for `createServices`. */
export interface OperationPacing extends RunPacingSettings {
  deadline: Deadline | undefined;
}

/**
 * Checks `limitRate` and `maxDuration` (cli-contract "Operating unattended") and builds the
 * operation's pacing for the CLI's own code (src/services.ts `createServices`). The window
 * starts now, on `clock` (default the system clock).
 * Throws UsageError (exitCode 2) `invalid_limit_rate` / `invalid_max_duration`.
 */
export function operationPacing(
  opts: PacingOptions,
  signal: AbortSignal | undefined,
  clock: Clock | undefined,
): OperationPacing {
  const rateBytesPerSecond = limitRateOf(opts.limitRate);
  const deadline = deadlineOf(opts.maxDuration, clock ?? { now: () => Date.now() });
  return { rateBytesPerSecond, deadline, signal, clock };
}

function limitRateOf(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate =
    typeof value === "number"
      ? Number.isFinite(value) && value >= MIN_RATE_BYTES_PER_SECOND
        ? Math.floor(value)
        : undefined
      : rateBytesPerSecond(value);
  if (rate === undefined) {
    throw new UsageError(`limitRate: ${JSON.stringify(value)} is not a download rate`, {
      code: "invalid_limit_rate",
    });
  }
  return rate;
}

function deadlineOf(
  value: number | string | Date | undefined,
  clock: Pick<Clock, "now">,
): Deadline | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date && Number.isFinite(value.getTime())) {
    return new Deadline(Math.max(0, (value.getTime() - clock.now()) / 1000), clock);
  }
  const seconds =
    typeof value === "number"
      ? Number.isFinite(value) && value > 0
        ? value
        : undefined
      : typeof value === "string"
        ? durationSeconds(value)
        : undefined;
  if (seconds === undefined) {
    throw new UsageError(`maxDuration: ${JSON.stringify(String(value))} is not a duration`, {
      code: "invalid_max_duration",
      detail: { library: true },
    });
  }
  return new Deadline(seconds, clock);
}

/** What {@link withRun} needs: the operation's sinks and its identity in reports and metrics. */
export interface LibraryRun<D extends ShapedDocument = ShapedDocument> {
  /** `report`: the file the operation's document is written to (as `--report`). */
  file: string | undefined;
  /** `metrics`: the Prometheus textfile written on every exit (as `--metrics`). */
  metrics?: string | undefined;
  /** `onItem`: called with each settled item's document, one call at a time. */
  onItem?: ((item: Record<string, unknown>) => void | Promise<void>) | undefined;
  /** `packs sync`, `install`, `pack get`, `asset get`, `verify` (the metrics' `command` label). */
  command: string;
  /** The operation's directory (absolute; the metrics' `dir` label). */
  dir: string;
  /** Members of the document known before the items (used until a shape is described). */
  head: Record<string, unknown>;
  /**
   * How many items of a returned document make the CLI exit 1 (the metrics' exit code); default
   * the summary's `failed`.
   */
  failures?: ((doc: D) => number) | undefined;
}

/**
 * Runs `body` with a {@link RunRecorder} and feeds the sinks of the CLI's run layer (src/run/),
 * never a second implementation: `onItem` with each settled item (calls queued one at a time,
 * all awaited before the call returns; a throw is a `warning:` notice, never a failed item);
 * on every exit, `report` gets the run's document as `--report` writes it (the complete
 * document, or the items settled so far with `"complete": false` and `error`), and `metrics`
 * the Prometheus textfile as `--metrics` writes it, with the exit code the CLI would have had
 * (the error's `exitCode`, 1 for a returned document with failed items, else 0). A file that
 * cannot be written fails a call that had succeeded with nothing failed: it rejects, after both
 * files were tried, with that file's error (FileSystemError, exit 8: `write_failed`,
 * `unsafe_output_path`, `no_space`, `permission_denied`), as the CLI exits 8 (cli-contract
 * "Operating unattended", "Library"). Otherwise `body`'s error, or its document with failed
 * items, stands, and the file is a `warning:` line to `onNotice` (the library never prints).
 */
export async function withRun<D extends ShapedDocument>(
  sinks: LibraryRun<D>,
  onNotice: ((line: string) => void) | undefined,
  body: (run: RunRecorder) => Promise<D>,
): Promise<D> {
  const run = new RunRecorder(sinks.command, sinks.dir, Date.now());
  Object.assign(run.head, sinks.head);
  const warn = (err: unknown, code: string): void =>
    onNotice?.(`warning: ${err instanceof Error ? err.message : String(err)} (${code})`);
  let hooks: Promise<void> = Promise.resolve();
  const { onItem } = sinks;
  if (onItem) {
    run.onSettled((item) => {
      hooks = hooks.then(async () => {
        try {
          await onItem(item);
        } catch (err) {
          warn(err, "hook_failed");
        }
      });
    });
  }
  let failure: { err: unknown } | undefined;
  let doc: D | undefined;
  try {
    doc = await body(run);
    run.complete(doc);
  } catch (err) {
    failure = { err };
  }
  await hooks;
  const problem = await writeSinks(sinks, run, failure?.err, doc, warn);
  if (failure) throw failure.err;
  if (problem) throw problem;
  return doc as D;
}

/** The exit code the CLI would have for this outcome. */
function exitCodeOf<D extends ShapedDocument>(
  error: unknown,
  doc: D | undefined,
  failures: LibraryRun<D>["failures"],
): number {
  if (error !== undefined) return toSvcError(error).exitCode;
  if (doc === undefined) return 0;
  const failed = failures ? failures(doc) : (doc.summary as { failed?: unknown }).failed;
  return typeof failed === "number" && failed > 0 ? 1 : 0;
}

/**
 * Writes `report`, then `metrics` (one after the other, as the CLI does, so the metrics tell
 * the exit code the call ends with). When the operation had succeeded with nothing failed (the
 * CLI's exit 0), the first file that cannot be written is returned, to be thrown (exit 8:
 * `write_failed`, `unsafe_output_path`…; the CLI's exit code for it) and later ones are
 * warnings; otherwise the operation keeps its own outcome and every such file is a warning.
 * Never throws.
 */
async function writeSinks<D extends ShapedDocument>(
  sinks: LibraryRun<D>,
  run: RunRecorder,
  error: unknown,
  result: D | undefined,
  warn: (err: unknown, code: string) => void,
): Promise<SvcError | undefined> {
  const doc = run.document(error === undefined ? undefined : runErrorOf(toSvcError(error)));
  const cwd = process.cwd();
  const exitCode = exitCodeOf(error, result, sinks.failures);
  const succeeded = exitCode === 0;
  const files = new RunFileWrites(exitCode);
  const { file, metrics } = sinks;
  if (file !== undefined) await files.write("report file", () => writeReport(cwd, file, doc));
  if (metrics !== undefined) {
    await files.write("metrics file", async () => {
      const m = await import("../run/metrics.js");
      await m.writeMetrics(cwd, metrics, {
        run,
        doc,
        exitCode: files.exitCode,
        endedAt: Date.now(),
      });
    });
  }
  const { problems } = files;
  const [first, ...rest] = problems;
  const fails = succeeded && first !== undefined;
  for (const p of fails ? rest : problems) warn(p, "output_not_written");
  return fails ? first : undefined;
}
