import type { Dispatcher } from "undici";
import { framingError, MAX_INTERIM_ANSWERS } from "./framing-rules.js";
import {
  type DispatchInit,
  type RawResponse,
  ResponseBody,
  type ResponseHeaders,
} from "./response-body.js";

/**
 * Sends one request through `dispatcher` with undici's handler API (`dispatch()`), no
 * redirects or retries, one turn of the event loop after it is called (see
 * {@link afterConnectionRelease}). Resolves when the final response head has arrived (interim
 * 1xx answers skipped, at most `MAX_INTERIM_ANSWERS` of them: the run's own connections never
 * show undici one, src/http/interim-answers.ts removes them first; a dispatcher given by the
 * caller may); rejects with undici's error (connection, TLS, DNS, timeout, bad framing) if it
 * fails before that. An abort of `signal` aborts the request or the body transfer with the
 * signal's reason; a signal aborted before the request is sent rejects without sending it.
 */
export async function dispatchRequest(
  dispatcher: Dispatcher,
  init: DispatchInit,
): Promise<RawResponse> {
  await afterConnectionRelease();
  return new Promise((resolve, reject) => {
    const body = new ResponseBody();
    let started = false;
    let interim = 0;
    let controller: Dispatcher.DispatchController | undefined;
    const abortReason = (): Error => {
      const reason: unknown = init.signal?.reason;
      return reason instanceof Error ? reason : new Error("aborted");
    };
    if (init.signal?.aborted) {
      reject(abortReason());
      return;
    }
    const onAbort = (): void => {
      if (controller) controller.abort(abortReason());
      // Still waiting for a connection (a proxy's CONNECT, a TLS handshake): undici would only
      // look at the abort once connected, up to the connect timeout. Settle now; the request
      // is aborted as soon as undici hands it a controller.
      if (!started) reject(abortReason());
    };
    const cleanup = (): void => init.signal?.removeEventListener("abort", onAbort);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctl) {
        controller = ctl;
        body.attach(ctl);
        if (init.signal?.aborted) ctl.abort(abortReason());
      },
      onResponseStart(ctl, statusCode, headers) {
        if (statusCode < 200) {
          // an interim answer (103 Early Hints...): skipped (RFC 9110 §15.2), up to the cap
          if (++interim > MAX_INTERIM_ANSWERS) {
            ctl.abort(framingError(`more than ${MAX_INTERIM_ANSWERS} interim (1xx) answers`));
          }
          return;
        }
        if (init.signal?.aborted) {
          ctl.abort(abortReason());
          return;
        }
        started = true;
        resolve({ statusCode, headers: headers as ResponseHeaders, body });
      },
      onResponseData(_ctl, chunk) {
        body.push(chunk);
      },
      onResponseEnd() {
        cleanup();
        body.end();
      },
      onResponseError(_ctl, err) {
        cleanup();
        if (started) body.fail(err);
        else reject(err);
      },
    };
    init.signal?.addEventListener("abort", onAbort, { once: true });
    const { origin, pathname, search } = init.url;
    try {
      dispatcher.dispatch(
        {
          origin,
          path: `${pathname}${search}`,
          method: init.method,
          headers: init.headers,
          ...(init.body !== undefined ? { body: init.body } : {}),
        },
        handler,
      );
    } catch (err) {
      cleanup();
      reject(err);
    }
  });
}

/**
 * Resolves one turn of the event loop later (`setImmediate`). With one request per connection
 * undici gives a kept-alive connection back to its pool only a turn after the response ended
 * (its `client-h1.js`: "wait a full event loop cycle to reuse this socket"); a request
 * dispatched before that opens a second connection, and a second TLS handshake (a `pack get`
 * did: its pack listing, then at once the download route). Waiting the turn here, after the
 * previous response's end, lets undici's release run first, so requests in sequence share one
 * connection.
 */
function afterConnectionRelease(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
