import type { Writable } from "node:stream";

/** How a finished file ended (cli-contract "JSON documents": `status`). */
export type FileOutcome = "downloaded" | "resumed" | "up-to-date" | "adopted" | "repaired";

/**
 * Progress of one file at a time, as the download engine reports it. `advance()` is called per
 * received chunk and must stay cheap; implementations throttle their own output.
 */
export interface FileProgress {
  /**
   * A transfer starts (again): `total` bytes when known, `offset` bytes already on disk
   * (resume), `label` an optional prefix such as `pack 3/12` (for `packs sync`).
   */
  start(info: { name: string; total: number | undefined; offset: number; label?: string }): void;
  /** `bytes` more bytes were written. */
  advance(bytes: number): void;
  /** The file is complete (or was already up to date): prints the one line per finished file. */
  done(info: { name: string; bytes: number; resumedFrom: number; outcome: FileOutcome }): void;
  /** Stops drawing and restores the terminal (cursor shown, bar line cleared). Idempotent. */
  stop(): void;
}

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
    return new BarProgress(opts.stderr, opts.now ?? Date.now);
  }
  const { PlainProgress } = await import("./progress-plain.js");
  return new PlainProgress(opts.stderr, {
    heartbeatMs: opts.progress ? (opts.heartbeatMs ?? 30_000) : Number.POSITIVE_INFINITY,
    now: opts.now ?? Date.now,
  });
}
