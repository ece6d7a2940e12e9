import type { ChalkInstance } from "chalk";
import type { IOStreams } from "./streams.js";

/**
 * Writes human-facing notes and warnings to stderr, honouring `--quiet`.
 * Data never goes through the reporter: commands write it to `io.stdout` themselves.
 */
export interface Reporter {
  /** An informational line (suppressed by `--quiet` and `--json`). */
  info(line: string): void;
  /** A warning line (shown even with `--quiet`). */
  warn(line: string): void;
  /** A debug line for `--verbose` (one per HTTP exchange, never a credential). */
  verbose(line: string): void;
  readonly colour: ChalkInstance;
}

/** Options of {@link createReporter}. */
export interface ReporterOptions {
  quiet: boolean;
  verbose: boolean;
  colour: ChalkInstance;
}

/** Creates the stderr reporter for one run. */
export function createReporter(io: IOStreams, opts: ReporterOptions): Reporter {
  const write = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  return {
    colour: opts.colour,
    info: (line) => {
      if (!opts.quiet) write(line);
    },
    warn: (line) => write(opts.colour.yellow(line)),
    verbose: (line) => {
      if (opts.verbose) write(opts.colour.dim(line));
    },
  };
}
