import { ExitCode } from "./exit-codes.js";
import { SvcError } from "./svc-error.js";

/** The run was stopped by SIGINT (exit 130) or SIGTERM (exit 143); partial data is kept. */
export class InterruptedError extends SvcError {
  override name = "InterruptedError";
  constructor(signal: "SIGINT" | "SIGTERM") {
    super(`interrupted by ${signal}`, {
      code: "interrupted",
      exitCode: signal === "SIGINT" ? ExitCode.sigint : ExitCode.sigterm,
    });
  }
}

/** The user pressed Ctrl-C (or Ctrl-D) at a prompt: nothing was started. Exit 130, code `cancelled`. */
export class CancelledError extends SvcError {
  override name = "CancelledError";
  constructor() {
    super("cancelled", { code: "cancelled", exitCode: ExitCode.sigint });
  }
}
