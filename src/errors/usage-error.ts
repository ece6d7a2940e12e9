import { ExitCode } from "./exit-codes.js";
import { SvcError } from "./svc-error.js";

/** The user's mistake: a bad flag, slug or value, or missing configuration. Exit 2. */
export class UsageError extends SvcError {
  override name = "UsageError";
  constructor(message: string, opts: { code?: string; hint?: string } = {}) {
    super(message, { code: opts.code ?? "usage_error", exitCode: ExitCode.usage, hint: opts.hint });
  }
}
