import type { Writable } from "node:stream";

import { StderrLines } from "./live-lines.js";
import type { FileProgress } from "./progress-types.js";

export type { FileOutcome, FileProgress, TransferStart } from "./progress-types.js";

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  stderr: Writable;
  /** stderr is a terminal. */
  isTTY: boolean;
  /** False with `--no-progress`: no bar and no periodic lines, but still one line per file. */
  progress: boolean;
  /** `--quiet` or `--json`: nothing at all. */
  quiet: boolean;
  /** Gap between periodic lines without a TTY, in ms (default 30 000). */
  heartbeatMs?: number;
  /** Clock in ms (tests). */
  now?: () => number;
  /** Before every plain line (the `HH:MM:SS ` of a log without a terminal). */
  prefix?: () => string;
  /** Terminal width for the bar (default: the stream's own `columns`, else 80). */
  columns?: number | undefined;
  /**
   * The run's writer of stderr lines (the reporter's too), so that lines written while the bar
   * is drawn are printed above it; by default one of its own on `stderr`.
   */
  lines?: StderrLines;
}

/** A progress sink that prints nothing. */
export const silentProgress: FileProgress = {
  start() {},
  advance() {},
  done() {},
  stop() {},
};

/**
 * Picks the progress output of cli-contract "Streams and output": a cli-progress bar (redrawn at
 * most 10 times a second) when stderr is a TTY and progress is wanted; else plain lines with no
 * escape sequences (one per finished file, and at most one every 30 s for a long download);
 * nothing with `--quiet`/`--json`. Loads cli-progress only for the bar.
 */
export async function createProgress(opts: ProgressOptions): Promise<FileProgress> {
  if (opts.quiet) return silentProgress;
  if (opts.isTTY && opts.progress) {
    const { BarProgress } = await import("./progress-bar.js");
    const lines = opts.lines ?? new StderrLines(opts.stderr);
    return new BarProgress(lines, opts.now ?? Date.now, opts.columns);
  }
  const { PlainProgress } = await import("./progress-plain.js");
  return new PlainProgress(opts.stderr, {
    heartbeatMs: opts.progress ? (opts.heartbeatMs ?? 30_000) : Number.POSITIVE_INFINITY,
    now: opts.now ?? Date.now,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
  });
}
