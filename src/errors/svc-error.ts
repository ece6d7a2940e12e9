/**
 * Base class of every error svc-dl reports to the user. `main()` turns it into one stderr
 * line (or the `--json` error document) and its `exitCode` (cli-contract "Exit codes").
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
  /** What the user can do next; printed under the message. */
  readonly hint: string | undefined;

  constructor(
    message: string,
    init: {
      code: string;
      exitCode: number;
      httpStatus?: number | null;
      requestId?: string | null;
      hint?: string | undefined;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.exitCode = init.exitCode;
    this.httpStatus = init.httpStatus ?? null;
    this.requestId = init.requestId ?? null;
    this.hint = init.hint;
  }
}
