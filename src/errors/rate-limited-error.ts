import { SvcError } from "./svc-error.js";

/**
 * Still rate limited past the `--max-wait` budget (cli-contract "Retries and rate limits"),
 * whether the service answered 429 or the budget known from rate-limit headers was spent before
 * asking. Exit 6, code `rate_limited`; the hint says when to retry.
 */
export class RateLimitedError extends SvcError {
  override name = "RateLimitedError";
  /** Seconds the service asks to wait before the next request. */
  readonly retryAfterSeconds: number;

  constructor(
    message: string,
    init: {
      retryAfterSeconds: number;
      now: number;
      httpStatus?: number | null;
      requestId?: string | null;
    },
  ) {
    const when = new Date(init.now + init.retryAfterSeconds * 1000).toISOString();
    super(message, {
      code: "rate_limited",
      httpStatus: init.httpStatus ?? null,
      requestId: init.requestId ?? null,
      hint: `Retry after ${when} (in ${init.retryAfterSeconds}s), or raise --max-wait.`,
    });
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
