import { exitCodeForApiCode, hintForApiCode } from "./api-codes.js";
import { SvcError } from "./svc-error.js";

/**
 * A failure answered by the service in the spec's error shape
 * (`{error:{code,message,request_id}}`, spec "Errors"). The exit code and hint come from
 * the one table in `api-codes.ts`.
 */
export class ApiError extends SvcError {
  override name = "ApiError";
  /** The service's own human text (`error.message`); may be reworded by the service. */
  readonly serviceMessage: string;

  constructor(init: {
    code: string;
    message: string;
    httpStatus: number;
    requestId: string | null;
    hint?: string;
  }) {
    super(`${init.message}`, {
      code: init.code,
      exitCode: exitCodeForApiCode(init.code, init.httpStatus),
      httpStatus: init.httpStatus,
      requestId: init.requestId,
      hint: init.hint ?? hintForApiCode(init.code),
    });
    this.serviceMessage = init.message;
  }
}
