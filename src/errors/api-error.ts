import { type HintDetail, serviceCode } from "./codes.js";
import { SvcError } from "./svc-error.js";

/**
 * A failure the service answered (spec "Errors"): the spec's error shape
 * (`{error:{code,message,request_id}}`), or a 5xx answer without it (`internal_error` /
 * `server_error`). Exit code, retryable and hint come from the table in `codes.ts`.
 */
export class ApiError extends SvcError {
  override name = "ApiError";
  /** The service's own human text (`error.message`); may be reworded by the service. */
  readonly serviceMessage: string;

  /** `code` as the service sent it: a row of the table, or kept as an unlisted code. */
  constructor(init: {
    code: string;
    message: string;
    httpStatus: number;
    requestId: string | null;
    hint?: string | undefined;
    /** Facts the table's hint may name (see {@link HintDetail}). */
    detail?: HintDetail | undefined;
  }) {
    super(init.message, {
      code: serviceCode(init.code),
      httpStatus: init.httpStatus,
      requestId: init.requestId,
      hint: init.hint,
      ...(init.detail !== undefined ? { detail: init.detail } : {}),
    });
    this.serviceMessage = init.message;
  }
}
