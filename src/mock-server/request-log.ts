/**
 * The request log of both origins (`mock.requests`, `mock.settled()`, `mock.clearLog()`) and
 * the CLI's `--log` lines: an entry is appended when its response closes, with the status,
 * the response headers and the body bytes actually written.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Origin } from "./fault-types.js";
import type { RequestLogEntry } from "./service-types.js";

function flatHeaders(
  h: IncomingMessage["headers"] | ReturnType<ServerResponse["getHeaders"]>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return out;
}

/** Counts the body bytes written to `res` (strings as UTF-8); `sent()` reads the count. */
function countBodyBytes(res: ServerResponse): { sent: () => number } {
  let bytesSent = 0;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const count = (chunk: unknown) => {
    if (typeof chunk === "string") bytesSent += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) bytesSent += chunk.length;
  };
  res.write = ((...args: unknown[]) => {
    count(args[0]);
    return write(...args);
  }) as ServerResponse["write"];
  res.end = ((...args: unknown[]) => {
    if (typeof args[0] !== "function") count(args[0]);
    return end(...args);
  }) as ServerResponse["end"];
  return { sent: () => bytesSent };
}

/** The live log of both origins. */
export class RequestLog {
  /** The entries, oldest first (the live array `mock.requests`). */
  readonly requests: RequestLogEntry[] = [];
  /** Requests received but not yet logged, and who waits for that count to reach zero. */
  #unlogged = 0;
  #waiters: (() => void)[] = [];

  /** `toStderr`: write one line per request (the CLI's `--log`). */
  constructor(private readonly toStderr: boolean) {}

  /**
   * Starts the entry of one request, appended when `res` closes. The caller fills in the
   * request body once it is read.
   */
  begin(origin: Origin, req: IncomingMessage, res: ServerResponse, requestId: string) {
    const time = Date.now();
    const bytes = countBodyBytes(res);
    this.#unlogged += 1;
    const entry: RequestLogEntry = {
      origin,
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: flatHeaders(req.headers),
      body: null,
      status: 0,
      bytesSent: 0,
      requestId,
      responseHeaders: {},
      time,
    };
    res.once("close", () => {
      entry.status = res.statusCode;
      entry.bytesSent = bytes.sent();
      entry.responseHeaders = flatHeaders(res.getHeaders());
      this.requests.push(entry);
      this.#unlogged -= 1;
      if (this.#unlogged === 0) for (const wake of this.#waiters.splice(0)) wake();
      if (this.toStderr) {
        process.stderr.write(
          `${new Date(time).toISOString()} ${origin} ${entry.method} ${entry.url.replace(/sig=[0-9a-f]+/, "sig=…")} → ${entry.status} ${entry.bytesSent}B ${Date.now() - time}ms ${requestId}\n`,
        );
      }
    });
    return entry;
  }

  /** Resolves once every request received so far is in `requests`. */
  settled(): Promise<void> {
    return this.#unlogged === 0
      ? Promise.resolve()
      : new Promise((wake) => this.#waiters.push(wake));
  }

  /** Empties the log (the same array stays `mock.requests`). */
  clear(): void {
    this.requests.length = 0;
  }
}
