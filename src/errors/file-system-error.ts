import { ExitCode } from "./exit-codes.js";
import { SvcError } from "./svc-error.js";

/**
 * A local file-system failure or conflict: no space, no permission, destination exists
 * (`file_exists`), directory locked by another run (`locked`), an unsafe config or state
 * directory. Exit 8 unless the table says otherwise.
 */
export class FileSystemError extends SvcError {
  override name = "FileSystemError";
  constructor(message: string, opts: { code: string; hint?: string; cause?: unknown }) {
    super(message, {
      code: opts.code,
      exitCode: ExitCode.fileSystem,
      hint: opts.hint,
      cause: opts.cause,
    });
  }
}
