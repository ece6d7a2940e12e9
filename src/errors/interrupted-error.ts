import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { SvcError } from "./svc-error.js";

/** The run was stopped by SIGINT (exit 130) or SIGTERM (exit 143); partial data is kept. */
export class InterruptedError extends SvcError {
  override name = "InterruptedError";
  /** The signal that stopped the run. */
  readonly signal: "SIGINT" | "SIGTERM";

  constructor(signal: "SIGINT" | "SIGTERM") {
    super(`interrupted by ${signal}`, { code: "interrupted" });
    this.signal = signal;
  }

  /** 130 for SIGINT (the table's), 143 for SIGTERM (cli-contract "Exit codes"). */
  override get exitCode(): ExitCodeValue {
    return this.signal === "SIGTERM" ? ExitCode.sigterm : ExitCode.sigint;
  }
}

/** The user pressed Ctrl-C (or Ctrl-D) at a prompt: nothing was started. Exit 130, code `cancelled`. */
export class CancelledError extends SvcError {
  override name = "CancelledError";
  constructor() {
    super("cancelled", { code: "cancelled" });
  }
}
