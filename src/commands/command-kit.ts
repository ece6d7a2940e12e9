import { type Command, InvalidArgumentError, Option } from "commander";
import type { Session } from "../session.js";

/** Builds the session of a run from the options of the command being run. */
export type OpenSession = (cmd: Command) => Session;

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
