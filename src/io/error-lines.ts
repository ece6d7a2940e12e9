import type { ChalkInstance } from "chalk";
import type { HintContext } from "../errors/codes.js";
import { NO_COMMAND } from "../errors/codes.js";
import { hintFor } from "../errors/format.js";
import type { SvcError } from "../errors/svc-error.js";
import { terminalText } from "./terminal-text.js";

/**
 * Formats an error for humans: `error: <message> (code <code>, HTTP <status>, request id <id>)`
 * then the hint on its own line, and the stack only when `verbose`. Every part is escaped by
 * `terminalText()` before it is coloured (cli-contract "Untrusted text, paths and caches"): the
 * message, code and request id may come from a server.
 */
export function formatErrorForHumans(
  err: SvcError,
  colour: ChalkInstance,
  verbose: boolean,
  c: HintContext = NO_COMMAND,
): string {
  const facts = [`code ${err.code}`];
  if (err.httpStatus !== null) facts.push(`HTTP ${err.httpStatus}`);
  if (err.requestId !== null) facts.push(`request id ${err.requestId}`);
  const lines = [`${colour.red("error:")} ${terminalText(`${err.message} (${facts.join(", ")})`)}`];
  const hint = hintFor(err, c);
  if (hint) lines.push(`${colour.dim("hint:")} ${terminalText(hint)}`);
  if (verbose) {
    const cause = err.cause instanceof Error ? err.cause : undefined;
    if (err.stack) lines.push(...stackLines(err.stack, err.message, colour));
    if (cause?.stack) lines.push(...stackLines(`caused by: ${cause.stack}`, cause.message, colour));
  }
  return lines.join("\n");
}

/** The lines of a stack, its (untrusted) message escaped first so it stays on its line. */
function stackLines(stack: string, message: string, colour: ChalkInstance): string[] {
  const safe = message === "" ? stack : stack.replace(message, () => terminalText(message));
  return safe.split("\n").map((line) => colour.dim(terminalText(line)));
}
