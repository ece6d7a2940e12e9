import { toSvcError } from "../errors/format.js";
import { UsageError } from "../errors/usage-error.js";
import { Deadline } from "../pacing/deadline.js";
import { runPacing } from "../pacing/run-pacing.js";
import { durationSeconds, MIN_RATE_BYTES_PER_SECOND, rateBytesPerSecond } from "../pacing/units.js";
import { runErrorOf } from "../run/error.js";
import { writeReport } from "../run/files.js";
import { RunRecorder } from "../run/recorder.js";
import type { HttpServiceSettings } from "../services.js";
import type { PacingOptions } from "./types.js";

/** The HTTP settings (signal, clock, pacing) and the deadline of one library operation. */
export interface OperationPacing {
  http: Pick<HttpServiceSettings, "signal" | "clock" | "transferPacing">;
  deadline: Deadline | undefined;
}

/**
 * Checks `limitRate` and `maxDuration` (cli-contract "Operating unattended") and builds the
 * operation's pacing with the CLI's own code (src/pacing/run-pacing.ts). The window starts now.
 * Throws UsageError (exitCode 2) `invalid_limit_rate` / `invalid_max_duration`.
 */
export function operationPacing(
  opts: PacingOptions,
  signal: AbortSignal | undefined,
): OperationPacing {
  const rate = limitRateOf(opts.limitRate);
  const deadline = deadlineOf(opts.maxDuration);
  return { http: runPacing({ rateBytesPerSecond: rate, deadline, signal }), deadline };
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
      hint: `Give bytes per second (at least ${MIN_RATE_BYTES_PER_SECOND}) or curl's syntax, e.g. "500K", "5M".`,
    });
  }
  return rate;
}

function deadlineOf(value: number | string | Date | undefined): Deadline | undefined {
  if (value === undefined) return undefined;
  const clock = { now: () => Date.now() };
  if (value instanceof Date && Number.isFinite(value.getTime())) {
    return new Deadline(Math.max(0, (value.getTime() - Date.now()) / 1000), clock);
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
      hint: 'Give seconds above 0, "90s", "30m", "2h", or a Date.',
    });
  }
  return new Deadline(seconds, clock);
}

/**
 * Runs `body` with a {@link RunRecorder} and, with `report`, writes the run's document to that
 * file atomically on every exit, as `--report` does (src/run/files.ts): the complete document,
 * or the items settled so far with `"complete": false` and `error`. A report that cannot be
 * written is a `warning:` line to `onNotice` (the library never prints); `body`'s result or
 * error is unchanged.
 */
export async function withReport<D extends { items: unknown[]; summary: object }>(
  report: { file: string | undefined; command: string; dir: string; head: Record<string, unknown> },
  onNotice: ((line: string) => void) | undefined,
  body: (run: RunRecorder) => Promise<D>,
): Promise<D> {
  const run = new RunRecorder(report.command, report.dir, Date.now());
  Object.assign(run.head, report.head);
  let error: unknown;
  try {
    const doc = await body(run);
    run.complete(doc);
    return doc;
  } catch (err) {
    error = err;
    throw err;
  } finally {
    if (report.file !== undefined) {
      const runError = error === undefined ? undefined : runErrorOf(toSvcError(error));
      await writeReport(process.cwd(), report.file, run.document(runError)).catch((err: unknown) =>
        onNotice?.(`warning: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  }
}
