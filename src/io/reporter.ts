import type { ChalkInstance } from "chalk";
import type { ErrorCode, UnlistedApiCode } from "../errors/codes.js";
import { StderrLines } from "./live-lines.js";
import type { IOStreams } from "./streams.js";
import { terminalText } from "./terminal-text.js";

/**
 * Writes human-facing notes and warnings to stderr, honouring `--quiet`.
 * Data never goes through the reporter: commands write it to `io.stdout` themselves.
 * Each call prints exactly one line, escaped by `terminalText()` (cli-contract "Untrusted text,
 * paths and caches"): a control character in it, a newline included, is shown as `\x1b`/`\x0a`,
 * so a server's or a file's text can neither drive the terminal nor forge a log line. Several
 * lines are several calls.
 */
export interface Reporter {
  /** An informational line (suppressed by `--quiet` and `--json`). */
  info(line: string): void;
  /**
   * A warning (shown even with `--quiet`): on a terminal or in a log the line `warning:
   * <message> (<code>)`, or `line` when the caller words it itself (an item's failure); with
   * `--json`, one JSON line `{"warning":{"code","message"}}` (both always present), so that
   * stderr holds JSON lines only (cli-contract "Streams and output").
   */
  warn(code: WarningCode, message: string, line?: string): void;
  /**
   * The next step under a warning (a failed item's hint): the line `  hint: <text>`, shown even
   * with `--quiet`; nothing with `--json`, whose document carries the hint.
   */
  hint(text: string): void;
  /** A debug line for `--verbose` (one per HTTP exchange, never a credential). */
  verbose(line: string): void;
  readonly colour: ChalkInstance;
}

/**
 * The `code` of a warning: an error code when an item failed and the run went on, else one of
 * the warnings' own codes (each says what to look at; none changes the exit code).
 */
export type WarningCode =
  | ErrorCode
  | UnlistedApiCode
  /** SVC_API_KEY or --base-url/SVC_BASE_URL outranks what the config file holds. */
  | "env_overrides_config"
  /** An --include/--exclude/--category of `packs sync` matches no owned pack. */
  | "selection_matches_nothing"
  /** An --on-item hook failed, timed out or was killed. */
  | "hook_failed"
  /** --report, --metrics or the step summary could not be written. */
  | "output_not_written"
  /** `packs sync --prune` moved nothing: the listing of owned packs contradicts itself. */
  | "prune_refused";

/** Options of {@link createReporter}. */
export interface ReporterOptions {
  quiet: boolean;
  /** `--json`: warnings become JSON lines (info lines are off through `quiet`). */
  json?: boolean;
  verbose: boolean;
  colour: ChalkInstance;
  /** Put before every line (the `HH:MM:SS ` of a plain log, see src/run/log-time.ts); none when it returns "". */
  prefix?: () => string;
  /** The run's writer of stderr lines, shared with the progress bar (default: its own). */
  lines?: StderrLines;
}

/** Creates the stderr reporter for one run. */
export function createReporter(io: IOStreams, opts: ReporterOptions): Reporter {
  const lines = opts.lines ?? new StderrLines(io.stderr);
  const write = (line: string, paint: (s: string) => string = String): void => {
    lines.write(`${opts.prefix?.() ?? ""}${terminalText(line)}`, paint);
  };
  return {
    colour: opts.colour,
    info: (line) => {
      if (!opts.quiet) write(line);
    },
    warn: (code, message, line) => {
      if (opts.json) lines.write(JSON.stringify({ warning: { code, message } }));
      else write(line ?? `warning: ${message} (${code})`, opts.colour.yellow);
    },
    hint: (text) => {
      if (!opts.json) write(`  hint: ${text}`, opts.colour.dim);
    },
    verbose: (line) => {
      if (opts.verbose) write(line, opts.colour.dim);
    },
  };
}
