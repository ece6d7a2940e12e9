import type { NetworkError } from "../errors/network-error.js";
import type { SvcError } from "../errors/svc-error.js";
import type { LowSpeedLimit } from "../http/dispatcher.js";
import type { HttpResponse, RequestSpec } from "../http/request-types.js";
import type { Failure, RetryBudget } from "../http/retry.js";
import type { Clock } from "../model.js";
import type { TransferPacing } from "../pacing/transfer.js";

/**
 * What a download's transfer (`fetchBody`, src/download/fetch-body.ts) needs of HTTP, and
 * nothing more: `HttpClient` (src/http/client.ts) satisfies it as it is; tests may pass a small
 * double. The run's abort signal is not part of it: the caller passes it with the download.
 */
export interface Transport {
  /** The service's origin: a 403/410 from any other origin is an expired signed URL. */
  readonly serviceOrigin: string;
  /** The run's clock (low-speed windows, transfer pacing). */
  readonly clock: Clock;
  /** Low-speed limit of body transfers (cli-contract "Networks"). */
  readonly lowSpeed: LowSpeedLimit;
  /** `--limit-rate` and `--max-duration` of download bodies, when set. */
  readonly transferPacing: TransferPacing | undefined;
  /** One request, redirects followed, no retries. Throws NetworkError, InterruptedError. */
  send(spec: RequestSpec): Promise<HttpResponse>;
  /** A fresh retry budget for one whole download. */
  newRetryBudget(): RetryBudget;
  /** A non-2xx answer (body consumed): a retryable Failure or the final error. */
  failureFromResponse(res: HttpResponse): Promise<Failure | SvcError>;
  /** A thrown error as a retryable Failure; throws it when it is not retryable. */
  failureFromError(err: unknown): Failure;
  /** The final error of a non-2xx answer (body consumed). */
  errorFromResponse(res: HttpResponse): Promise<SvcError>;
  /** The classified NetworkError of a transfer to `url` that failed. */
  networkError(
    err: unknown,
    url: URL,
    requestId: string | null,
    duringBody?: boolean,
  ): NetworkError;
}
