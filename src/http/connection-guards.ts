import type { buildConnector } from "undici";
import { skipInterimAnswers } from "./interim-answers.js";
import { finishPausedBodyAtEnd } from "./paused-parser-end.js";

/**
 * Wraps an undici connector (`buildConnector(...)`, or ProxyAgent's tunnel connector handed to
 * its agent factory) so that every socket it opens gets the run's guards before undici sees
 * it: interim (1xx) answers skipped (src/http/interim-answers.ts) and a body paused at the
 * connection's end finished instead of crashing the process (src/http/paused-parser-end.ts).
 * Errors and the socket are passed on as they come.
 */
export function guardedConnector(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      const socket = args[1];
      if (socket) {
        skipInterimAnswers(socket);
        finishPausedBodyAtEnd(socket);
      }
      callback(...args);
    });
}
