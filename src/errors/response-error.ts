import type { ErrorCode } from "./codes.js";
import { SvcError } from "./svc-error.js";

/**
 * A response that breaks the interface spec: an HTML page where JSON was due, invalid JSON,
 * a body of the wrong shape (the zod issues are kept in `issues`). Exit 7, code
 * `unexpected_response`.
 */
export class ResponseError extends SvcError {
  override name = "ResponseError";
  /** Always a row of the table (never a service's unlisted code). */
  declare readonly code: ErrorCode;
  /** Human-readable list of what did not match the schema, when a schema was checked. */
  readonly issues: readonly string[];

  constructor(
    message: string,
    opts: {
      httpStatus: number | null;
      requestId: string | null;
      issues?: readonly string[];
      code?: ErrorCode;
      cause?: unknown;
    },
  ) {
    super(message, {
      code: opts.code ?? "unexpected_response",
      httpStatus: opts.httpStatus,
      requestId: opts.requestId,
      cause: opts.cause,
    });
    this.issues = opts.issues ?? [];
  }
}
