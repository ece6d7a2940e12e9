import { hintFor } from "../errors/format.js";
import type { SvcError } from "../errors/svc-error.js";
import type { RunError } from "./recorder.js";

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
