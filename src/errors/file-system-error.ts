import type { ErrorCode, HintDetail } from "./codes.js";
import { SvcError } from "./svc-error.js";

/**
 * A local file-system failure or conflict: no space, no permission, destination exists
 * (`file_exists`), directory locked by another run (`locked`), an unsafe config or state
 * directory. Exit code and scope from the table (8 for these codes).
 */
export class FileSystemError extends SvcError {
  override name = "FileSystemError";
  /** Always a row of the table (never a service's unlisted code). */
  declare readonly code: ErrorCode;
  constructor(
    message: string,
    opts: { code: ErrorCode; hint?: string | undefined; detail?: HintDetail; cause?: unknown },
  ) {
    super(message, {
      code: opts.code,
      hint: opts.hint,
      cause: opts.cause,
      ...(opts.detail ? { detail: opts.detail } : {}),
    });
  }
}
