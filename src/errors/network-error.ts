import { SvcError } from "./svc-error.js";

/**
 * The service could not be reached or kept failing: connection refused or dropped, timeouts,
 * 5xx after every retry, too many redirects. Exit 7 (code `network_error` unless given).
 */
export class NetworkError extends SvcError {
  override name = "NetworkError";
  constructor(
    message: string,
    opts: {
      code?: string;
      httpStatus?: number | null;
      requestId?: string | null;
      hint?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, {
      code: opts.code ?? "network_error",
      exitCode: 7,
      httpStatus: opts.httpStatus ?? null,
      requestId: opts.requestId ?? null,
      hint: opts.hint,
      cause: opts.cause,
    });
  }
}
