import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { SvcError } from "./svc-error.js";

/**
 * The run was stopped from outside: by SIGINT (exit 130) or SIGTERM (exit 143), or by its
 * `--max-duration` ({@link DeadlineError}); partial data is kept. Every wait and transfer that
 * honours the run's abort signal throws this.
 */
export class InterruptedError extends SvcError {
  override name = "InterruptedError";
  /** The signal that stopped the run. */
  readonly signal: "SIGINT" | "SIGTERM";

  constructor(
    signal: "SIGINT" | "SIGTERM",
    /** Another kind of stop (the deadline): its own message and code (the table's exit code). */
    stop?: { message: string; code: "deadline_reached" },
  ) {
    super(stop?.message ?? `interrupted by ${signal}`, { code: stop?.code ?? "interrupted" });
    this.signal = signal;
  }

  /** 130 for SIGINT (the table's), 143 for SIGTERM (cli-contract "Exit codes"); another stop's from the table. */
  override get exitCode(): ExitCodeValue {
    if (this.code !== "interrupted") return super.exitCode;
    return this.signal === "SIGTERM" ? ExitCode.sigterm : ExitCode.sigint;
  }
}

/**
 * The InterruptedError behind an aborted `signal`: its reason when that is one (SIGINT, SIGTERM,
 * the deadline), else an InterruptedError "SIGINT" (a library caller's own AbortSignal). The one
 * place an abort becomes an error: the HTTP client, the clock, the lock and the download all
 * throw this.
 */
export function interruptedBy(signal: AbortSignal): InterruptedError {
  const reason: unknown = signal.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError("SIGINT");
}

/**
 * `--max-duration` was reached before every item finished (cli-contract "Operating unattended",
 * exit 10 `deadline_reached`, retryable): the running download stopped with its partial data
 * kept; items not started are reported `deferred`. An InterruptedError, so every wait and
 * transfer stops for it as for a signal.
 */
export class DeadlineError extends InterruptedError {
  override name = "DeadlineError";
  constructor(seconds: number) {
    super("SIGTERM", {
      message: `--max-duration (${seconds} s) reached before every item finished`,
      code: "deadline_reached",
    });
  }
}

/** The user pressed Ctrl-C (or Ctrl-D) at a prompt: nothing was started. Exit 130, code `cancelled`. */
export class CancelledError extends SvcError {
  override name = "CancelledError";
  constructor() {
    super("cancelled", { code: "cancelled" });
  }
}
