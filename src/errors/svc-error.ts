import {
  type CodedFailure,
  type ErrorCode,
  exitCodeFor,
  type HintDetail,
  isRetryable,
  NO_COMMAND,
  renderHint,
  type UnlistedApiCode,
} from "./codes.js";
import type { ExitCodeValue } from "./exit-codes.js";

/**
 * Base class of every error svc-dl reports to the user. `main()` turns it into one stderr
 * line (or the `--json` error document) and its `exitCode` (cli-contract "Exit codes"). The one
 * table in `codes.ts` decides the exit code, `retryable` and the hint from `code` and the facts the
 * thrower passes (`detail`); a prose hint given here by the thrower wins over the table's, for
 * the few situations no row can know (listed in test/errors/hint-source.test.ts).
 */
export class SvcError extends Error {
  override name = "SvcError";
  /** Stable machine-readable code: a row of the table, or a service's code the spec does not list. */
  readonly code: ErrorCode | UnlistedApiCode;
  /** HTTP status of the response behind this error, or null when none was received. */
  readonly httpStatus: number | null;
  /** Request id (`x-request-id`) of the request behind this error, or null when none was made. */
  readonly requestId: string | null;
  /** The thrower's own hint for this situation, when it gave one; it wins over the table's. */
  readonly siteHint: string | undefined;
  /** The facts the thrower passed for the table's hint to name (a path, a file name); {} when none. */
  readonly detail: HintDetail;
  /**
   * The next step: the thrower's hint, else the table's for the code (outside any command, as a
   * library caller sees it; the CLI renders the table's for the command at hand). Undefined when
   * there is none.
   */
  readonly hint: string | undefined;
  /** For the outcome of a run over several items: the failures it counts (`retryable` reads them). */
  readonly failures: readonly CodedFailure[];

  constructor(
    message: string,
    init: {
      code: ErrorCode | UnlistedApiCode;
      httpStatus?: number | null;
      requestId?: string | null;
      hint?: string | undefined;
      detail?: HintDetail;
      failures?: readonly CodedFailure[];
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.httpStatus = init.httpStatus ?? null;
    this.requestId = init.requestId ?? null;
    this.siteHint = init.hint;
    this.detail = init.detail ?? {};
    this.hint = init.hint ?? renderHint(init.code, NO_COMMAND, this.detail) ?? undefined;
    this.failures = init.failures ?? [];
  }

  /** Process exit code, from the table (cli-contract "Exit codes"). */
  get exitCode(): ExitCodeValue {
    return exitCodeFor(this.code, this.httpStatus);
  }

  /** True when running the same command again later may succeed (the `--json` `retryable`). */
  get retryable(): boolean {
    return isRetryable(this.code, this.httpStatus, this.failures);
  }

  /** A copy of this error with `text` replaced in its message and hints (secrets out of output). */
  redacted(text: string, by: string): this {
    if (text.length === 0) return this;
    return this.mapText((s) => s.split(text).join(by));
  }

  /** A copy of this error with `extra` added to its facts, its hint rendered again from them. */
  withDetail(extra: HintDetail): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    const detail = { ...this.detail, ...extra };
    // message and stack are not enumerable: Object.assign would leave them out
    Object.assign(copy, this, {
      message: this.message,
      stack: this.stack,
      detail,
      hint: this.siteHint ?? renderHint(this.code, NO_COMMAND, detail) ?? undefined,
    });
    return copy;
  }

  /** A copy of this error with `f` applied to its message, hints and stack. */
  mapText(f: (text: string) => string): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, {
      message: f(this.message),
      hint: this.hint === undefined ? undefined : f(this.hint),
      siteHint: this.siteHint === undefined ? undefined : f(this.siteHint),
      detail: Object.fromEntries(
        Object.entries(this.detail).map(([k, v]) => [k, typeof v === "string" ? f(v) : v]),
      ),
      stack: this.stack === undefined ? undefined : f(this.stack),
    });
    return copy;
  }
}
