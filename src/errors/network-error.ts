import type { ErrorCode, HintDetail } from "./codes.js";
import { SvcError } from "./svc-error.js";

/**
 * The network failed before a complete answer: connection refused or dropped (`network_error`),
 * TLS (`tls_error`), DNS (`dns_error`), a timeout (`timeout`), a proxy (`proxy_error`), a
 * redirect that cannot be followed. Exit 7. Answers of the service (5xx included) are
 * `ApiError`s, not network errors.
 */
export class NetworkError extends SvcError {
  override name = "NetworkError";
  /** Always a row of the table (never a service's unlisted code). */
  declare readonly code: ErrorCode;
  constructor(
    message: string,
    opts: {
      code?: ErrorCode;
      httpStatus?: number | null;
      requestId?: string | null;
      hint?: string | undefined;
      detail?: HintDetail;
      cause?: unknown;
    } = {},
  ) {
    super(message, {
      code: opts.code ?? "network_error",
      httpStatus: opts.httpStatus ?? null,
      requestId: opts.requestId ?? null,
      hint: opts.hint,
      ...(opts.detail ? { detail: opts.detail } : {}),
      cause: opts.cause,
    });
  }
}
