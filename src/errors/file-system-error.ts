import { SvcError } from "./svc-error.js";

/**
 * A local file-system failure or conflict: no space, no permission, destination exists
 * (`file_exists`), directory locked by another run (`locked`). Exit 8.
 */
export class FileSystemError extends SvcError {
  override name = "FileSystemError";
  constructor(message: string, opts: { code: string; hint?: string; cause?: unknown }) {
    super(message, { code: opts.code, exitCode: 8, hint: opts.hint, cause: opts.cause });
  }
}
