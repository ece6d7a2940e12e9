import { type HintContext, NO_COMMAND, renderHint } from "./codes.js";
import { SvcError } from "./svc-error.js";

/** The `--json` error document of cli-contract "Streams and output". */
export interface JsonErrorDocument {
  error: {
    code: string;
    message: string;
    http_status: number | null;
    request_id: string | null;
    /** True when running the same command again later may succeed. */
    retryable: boolean;
    /** The next step, naming only commands and flags that exist; null when there is none. */
    hint: string | null;
  };
}

/** Wraps anything thrown into an SvcError (unexpected failures become `unexpected`, exit 1). */
export function toSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new SvcError(`unexpected failure: ${message}`, { code: "unexpected", cause: err });
}

/**
 * The hint of an error for the command at hand: the thrower's own (it knows the situation),
 * else the table's for the code, rendered for `c`.
 */
export function hintFor(err: SvcError, c: HintContext = NO_COMMAND): string | null {
  return err.siteHint ?? renderHint(err.code, c, err.detail);
}

/**
 * Builds the `--json` error document (cli-contract "Streams and output"): `http_status` and
 * `request_id` are null when no response was received (a connection failure keeps the id it
 * sent in the human message only).
 */
export function jsonErrorDocument(err: SvcError, c: HintContext = NO_COMMAND): JsonErrorDocument {
  const answered = err.httpStatus !== null;
  return {
    error: {
      code: err.code,
      message: err.message,
      http_status: err.httpStatus,
      request_id: answered ? err.requestId : null,
      retryable: err.retryable,
      hint: hintFor(err, c),
    },
  };
}
