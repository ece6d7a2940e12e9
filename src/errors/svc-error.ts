import { exitCodeFor, isRetryable } from "./codes.js";

/**
 * Base class of every error svc-dl reports to the user. `main()` turns it into one stderr
 * line (or the `--json` error document) and its `exitCode` (cli-contract "Exit codes"); the exit
 * code, `retryable` and the hint's text come from the one table in `codes.ts`.
 */
export class SvcError extends Error {
  override name = "SvcError";
  /** Stable machine-readable code: the API's `error.code` or a local one (`no_api_key`, `file_exists`, …). */
  readonly code: string;
  /** Process exit code, from the contract's table. */
  readonly exitCode: number;
  /** HTTP status of the response behind this error, or null when none was received. */
  readonly httpStatus: number | null;
  /** Request id (`x-request-id`) of the request behind this error, or null when none was made. */
  readonly requestId: string | null;
  /**
   * The thrower's own next step (a time, a path); the table's hint for the code, rendered for
   * the command at hand, takes precedence where the table has a fixed one.
   */
  readonly hint: string | undefined;

  constructor(
    message: string,
    init: {
      code: string;
      /** Defaults to the table's exit code for `code`. */
      exitCode?: number;
      httpStatus?: number | null;
      requestId?: string | null;
      hint?: string | undefined;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.httpStatus = init.httpStatus ?? null;
    this.exitCode = init.exitCode ?? exitCodeFor(init.code, this.httpStatus);
    this.requestId = init.requestId ?? null;
    this.hint = init.hint;
  }

  /** True when running the same command again later may succeed (the `--json` `retryable`). */
  get retryable(): boolean {
    return isRetryable(this.code, this.httpStatus);
  }

  /** A copy of this error with `text` replaced in its message and hint (secrets out of output). */
  redacted(text: string, by: string): this {
    if (text.length === 0) return this;
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, {
      message: this.message.split(text).join(by),
      hint: this.hint?.split(text).join(by),
      stack: this.stack?.split(text).join(by),
    });
    return copy;
  }
}
