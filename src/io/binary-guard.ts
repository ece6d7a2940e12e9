import { UsageError } from "../errors/usage-error.js";
import type { IOStreams } from "./streams.js";

/**
 * Refuses to write a file's bytes to stdout when stdout is a terminal (`-o -` without a
 * redirect), as curl does: binary data would garble the terminal. Call before any request.
 * Throws UsageError `binary_to_terminal` (exit 2).
 */
export function refuseBinaryToTerminal(io: Pick<IOStreams, "stdoutIsTTY">): void {
  if (!io.stdoutIsTTY) return;
  throw new UsageError(
    "refusing to write binary data to the terminal (-o - with stdout a terminal)",
    {
      code: "binary_to_terminal",
    },
  );
}
