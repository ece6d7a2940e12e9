import type { ErrorCode, HintDetail } from "./codes.js";
import { SvcError } from "./svc-error.js";

/**
 * The user's mistake: a bad flag, slug or value, or missing configuration. Exit 2 for every code
 * it is thrown with (the table's rows for them).
 */
export class UsageError extends SvcError {
  override name = "UsageError";
  /** Always a row of the table (never a service's unlisted code). */
  declare readonly code: ErrorCode;
  constructor(
    message: string,
    opts: { code?: ErrorCode; hint?: string | undefined; detail?: HintDetail } = {},
  ) {
    super(message, {
      code: opts.code ?? "usage_error",
      hint: opts.hint,
      ...(opts.detail ? { detail: opts.detail } : {}),
    });
  }
}
