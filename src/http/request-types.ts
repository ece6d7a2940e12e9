import type { Dispatcher } from "undici";
import type { ApiError } from "../errors/api-error.js";
import type { SvcError } from "../errors/svc-error.js";
import type { Clock } from "../model.js";
import type { TransferPacing } from "../pacing/transfer.js";
import type { NetworkSettings } from "./dispatcher.js";
import type { Budget } from "./pacer.js";
import type { ResponseBody, ResponseHeaders } from "./response-body.js";
import type { RetrySettings } from "./retry.js";

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** The spec's `{base_url}` (service address, no `/api`). */
  baseUrl: URL;
  /** Where the base URL was set, as printed in messages (`--base-url`, `SVC_BASE_URL`, …). */
  baseUrlSource?: string;
  /** Returns the API key; called only when a request to the service origin needs one. Throws when none is configured. */
  apiKey: () => string;
  /** `svc-dl/<version>`. */
  userAgent: string;
  /** Injected dispatcher (a `MockAgent` in unit tests); default one built from `network`. */
  dispatcher?: Dispatcher;
  /**
   * `--offline` / `SVC_DL_OFFLINE=1` (cli-contract "Manifest, lock and cache"): no connection is
   * opened at all; every request throws SvcError `offline` (exit 8) before anything is sent.
   */
  offline?: boolean | undefined;
  /** Proxy, CA file, environment and silence limit of the run's dispatcher. */
  network?: NetworkSettings;
  clock?: Clock;
  retry?: Partial<RetrySettings>;
  /** Aborted on SIGINT/SIGTERM; requests and waits then end with InterruptedError. */
  signal?: AbortSignal;
  /** `--limit-rate` and `--max-duration` of download bodies (src/download/rate-limit.ts). */
  transferPacing?: TransferPacing;
  /** One line per HTTP exchange, for `--verbose`. Never carries a credential. */
  onExchange?: (line: string) => void;
  /** Notices of waits and retries, for stderr. */
  onNotice?: (line: string) => void;
  /**
   * Adds what only the caller knows to the service's error answers (where a refused API key
   * came from); default: the error as built from the response.
   */
  explainApiError?: (err: ApiError) => SvcError;
}

/** One request. Headers are lower-case. */
export interface RequestSpec {
  method?: "GET" | "POST";
  url: URL;
  headers?: Record<string, string>;
  /** Request body (only with POST); never re-sent to a redirect target. */
  body?: string;
  /** The rate-limit budget it spends; default from the path (spec "Limits"). */
  budget?: Budget;
  /** Whether to send the API key (only ever to the service origin). Default true. */
  authenticate?: boolean;
  /**
   * A time limit of this request besides the run's signal (doctor's probe budget): its abort
   * reason is the request's error, classified as any other (a `definite` one is not retried).
   */
  signal?: AbortSignal;
}

/** A response whose body is still to be read (or discarded) by the caller. */
export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  body: ResponseBody;
  /** The URL that answered (after redirects). */
  url: URL;
  /** The response's `x-request-id` (redacted), else the one sent, else null. */
  requestId: string | null;
}
