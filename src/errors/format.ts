import type { ChalkInstance } from "chalk";
import { SvcError } from "./svc-error.js";

/** The `--json` error document of cli-contract "Streams and output". */
export interface JsonErrorDocument {
  error: {
    code: string;
    message: string;
    http_status: number | null;
    request_id: string | null;
  };
}

/** Wraps anything thrown into an SvcError (unexpected failures become `internal` with exit 1). */
export function toSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new SvcError(`unexpected failure: ${message}`, {
    code: "unexpected",
    exitCode: 1,
    hint: "Run again with --verbose for details, and report it if it persists.",
    cause: err,
  });
}

/**
 * Builds the `--json` error document (cli-contract "Streams and output"): `http_status` and
 * `request_id` are null when no response was received (a connection failure keeps the id it
 * sent in the human message only). The hint follows the message after " — ".
 */
export function jsonErrorDocument(err: SvcError): JsonErrorDocument {
  const answered = err.httpStatus !== null;
  return {
    error: {
      code: err.code,
      message: err.hint ? `${err.message} — ${err.hint}` : err.message,
      http_status: err.httpStatus,
      request_id: answered ? err.requestId : null,
    },
  };
}

/**
 * Formats an error for humans: `error: <message> (code <code>, HTTP <status>, request id <id>)`
 * then the hint on its own line, and the stack only when `verbose`.
 */
export function formatErrorForHumans(
  err: SvcError,
  colour: ChalkInstance,
  verbose: boolean,
): string {
  const facts = [`code ${err.code}`];
  if (err.httpStatus !== null) facts.push(`HTTP ${err.httpStatus}`);
  if (err.requestId !== null) facts.push(`request id ${err.requestId}`);
  const lines = [`${colour.red("error:")} ${err.message} (${facts.join(", ")})`];
  if (err.hint) lines.push(`${colour.dim("hint:")} ${err.hint}`);
  if (verbose) {
    const causeStack = err.cause instanceof Error ? err.cause.stack : undefined;
    if (err.stack) lines.push(colour.dim(err.stack));
    if (causeStack) lines.push(colour.dim(`caused by: ${causeStack}`));
  }
  return lines.join("\n");
}
