import type { ItemError } from "../documents/parts.js";
import { type HintContext, NO_COMMAND } from "../errors/codes.js";
import { hintFor } from "../errors/format.js";
import type { SvcError } from "../errors/svc-error.js";
import type { RunError } from "./recorder.js";

export type { ItemError } from "../documents/parts.js";

/** The `error` member of the document of a run that stopped part-way (cli-contract "--report"). */
export function runErrorOf(svcError: SvcError): RunError {
  return {
    code: svcError.code,
    message: svcError.message,
    request_id: svcError.requestId,
    retryable: svcError.retryable,
    hint: hintFor(svcError),
  };
}

/**
 * The `error` member of a failed item: code, message, HTTP status, request id (null when none)
 * and `hint`, the item's next step: the thrower's own, else the error table's for the code,
 * rendered for the command at hand `c` and the item's `kind` (src/errors/format.ts `hintFor`);
 * null when none.
 */
export function itemError(
  err: SvcError,
  c: HintContext = NO_COMMAND,
  kind?: "pack" | "asset",
): ItemError {
  return {
    code: err.code,
    message: err.message,
    http_status: err.httpStatus,
    request_id: err.requestId,
    hint: hintFor(err, kind ? { ...c, item: kind } : c),
  };
}
