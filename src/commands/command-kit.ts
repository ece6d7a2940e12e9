import { type Command, InvalidArgumentError, Option } from "commander";
import type { Session } from "../session.js";

/** Builds the session of a run from the options of the command being run. */
export type OpenSession = (cmd: Command) => Session;

/**
 * Checks words after `svc-dl` as a command line without running it (src/cli.ts `argvProblem`):
 * resolves the one-line message a run would fail with before starting (an unknown option, a
 * missing or invalid value), or undefined when the command would start.
 */
export type ArgvCheck = (argv: readonly string[]) => Promise<string | undefined>;

/** Parses a whole number ≥ 0 for a flag; commander reports the failure as a usage error. */
export function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number");
  return Number(value);
}

/** Parses a whole number ≥ 1 for a flag. */
export function parsePositiveNumber(value: string): number {
  const n = parseWholeNumber(value);
  if (n < 1) throw new InvalidArgumentError("expected a whole number of at least 1");
  return n;
}

/** The help text of every command ends with examples (`$ svc-dl …`). */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}

/**
 * Adds the options every download command shares (cli-contract "Downloads"): `-o/--output`
 * (a directory, an exact file path, or `-` for stdout), `--force`, and with `edition` the
 * `--edition standard|authoring` choice.
 */
export function addDownloadOptions(cmd: Command, opts: { edition?: string } = {}): Command {
  if (opts.edition !== undefined) {
    cmd.addOption(
      new Option("--edition <edition>", opts.edition).choices(["standard", "authoring"]),
    );
  }
  return cmd
    .option(
      "-o, --output <path>",
      "directory (server's file name), exact file path, or - for stdout",
    )
    .option("--force", "overwrite a file that svc-dl did not download");
}

/** `--report`, `--metrics`, `--on-item`, `--on-done` as commander parses them. */
export interface RunOutputFlags {
  report?: string;
  metrics?: string;
  onItem?: string;
  onDone?: string;
}

/**
 * Adds the unattended-run options of a multi-item command (cli-contract "Operating
 * unattended" and "Credentials, schedules and offline runs"): `--report FILE`, `--metrics
 * FILE`, `--on-item CMD`, `--on-done CMD` (src/run/).
 */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option("--report <file>", "also write the run's JSON document to FILE, on every exit")
    .option("--metrics <file>", "write Prometheus metrics (textfile collector) to FILE")
    .option("--on-item <cmd>", "run CMD with /bin/sh -c after each item (its JSON on stdin)")
    .option(
      "--on-done <cmd>",
      "run CMD with /bin/sh -c after the run, however it ends (the run's JSON on stdin)",
    );
}

/** The help lines of {@link addRunOptions}, for a command's help text. */
export const RUN_OPTIONS_HELP = `--report FILE is written atomically on every exit, also when the run stops part-way
("complete": false, the error, the items settled so far); a report or metrics file that cannot be
written makes a run that succeeded exit 8 (a failed run keeps its own code). --metrics FILE keeps
svc_dl_last_success_timestamp_seconds from the previous FILE when this run fails. --on-item gets
SVC_DL_ITEM_STATUS, SVC_DL_ITEM_PATH and SVC_DL_ITEM_SLUG; --on-done gets SVC_DL_EXIT_CODE,
SVC_DL_COMMAND and SVC_DL_REPORT (never a key); each call 60 s at most; a failing hook is a
warning and never changes the exit code. See docs/cron-and-ci.md.`;
