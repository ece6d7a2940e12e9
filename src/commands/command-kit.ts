import { type Command, InvalidArgumentError } from "commander";
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
