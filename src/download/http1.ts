import { isIP, connect as netConnect, type Socket } from "node:net";
import { Readable } from "node:stream";
import { type ConnectionOptions, connect as tlsConnect } from "node:tls";
import { HttpParseError, type ParsedHeaders, ResponseParser } from "./http1-parser.js";

/**
 * The download transport: one HTTP/1.1 request per connection (`Connection: close`)
 * over `net`/`tls`, the socket read with `onread` into ONE reused buffer. undici allocates a
 * fresh 64 KiB buffer per socket read and V8 frees that external memory lazily, which cost
 * ≈ 70 MiB of peak RSS and ≈ 0.5 CPU-s per GiB; here a GiB costs no allocation at all. Body
 * bytes reach a synchronous sink ({@link DirectBody.setSink}) as views of that buffer, or, for
 * any other reader, a normal Readable of copied chunks (error pages, redirects).
 */

/** Bytes of the reused socket read buffer. */
export const READ_BUFFER_BYTES = 256 * 1024;

/** Options of {@link directRequest}. Header names are lower-case. */
export interface DirectRequestInit {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Connection set-up limit in ms; default 30 000 (as the HttpClient's undici Agent). */
  connectTimeoutMs?: number;
  /** Longest silence while waiting for the response head, in ms; default 60 000. */
  headersTimeoutMs?: number;
  /** Longest silence while reading the body, in ms; default 60 000. */
  bodyTimeoutMs?: number;
  /** Extra TLS options (tests pass a `ca`). */
  tls?: ConnectionOptions;
}

/** A response whose body is still to be read; the shape of undici's `request()` result. */
export interface DirectResponse {
  statusCode: number;
  headers: ParsedHeaders;
  body: DirectBody;
}

/** A connection failure of the transport, with a `code` like undici's errors. */
export class DirectSocketError extends Error {
  override name = "SocketError";
  readonly code: string;
  constructor(code: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
  }
}

/**
 * The body of a {@link directRequest} response. Either call {@link setSink} once (every body
 * byte then goes to the sink synchronously, as a view valid only during the call; `'end'`,
 * `'error'` and `'close'` are emitted as for any Readable), or read it as a Readable of copied
 * chunks. `dump()` and `destroy()` close the connection.
 */
export class DirectBody extends Readable {
  readonly #socket: Socket;
  #sink: ((view: Buffer) => void) | undefined;
  /** Copies of body bytes that arrived before a reader was attached (at most one socket read). */
  #early: Buffer[] = [];
  #started = false;
  #ended = false;

  /** @internal created by {@link directRequest} */
  constructor(socket: Socket) {
    super();
    this.#socket = socket;
  }

  /**
   * Sends every body byte to `sink` synchronously from the socket read, as a view of the reused
   * read buffer (valid only during the call; copy what must be kept). A sink that throws
   * destroys the body with that error.
   */
  setSink(sink: (view: Buffer) => void): void {
    this.#sink = sink;
    this.#start();
    this.resume(); // flowing, so that 'end' is emitted
  }

  /** Discards the body: closes the connection (it is never reused). */
  dump(_opts?: { limit?: number }): Promise<null> {
    this.destroy();
    return Promise.resolve(null);
  }

  /** @internal body bytes from the socket; false asks the transport to pause the socket. */
  deliver(view: Buffer): boolean {
    if (this.destroyed) return false;
    if (this.#sink) {
      try {
        this.#sink(view);
      } catch (err) {
        this.destroy(err as Error);
        return false;
      }
      return true;
    }
    if (!this.#started) {
      this.#early.push(Buffer.from(view));
      return false;
    }
    return this.push(Buffer.from(view));
  }

  /** @internal the body is complete. */
  finish(): void {
    this.#ended = true;
    if (this.#started) this.push(null);
  }

  override _read(): void {
    if (!this.#started) this.#start();
    else if (!this.#ended) this.#socket.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.#early = [];
    this.#socket.destroy();
    cb(err);
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const early = this.#early;
    this.#early = [];
    for (const chunk of early) {
      if (this.destroyed) return;
      if (this.#sink) {
        try {
          this.#sink(chunk);
        } catch (err) {
          this.destroy(err as Error);
          return;
        }
      } else this.push(chunk);
    }
    if (this.#ended) this.push(null);
    else this.#socket.resume();
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const OWN_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

/**
 * Sends one request to `url` (http or https) and resolves when the response head has arrived.
 * Certificates are checked as for any Node TLS client (system CAs plus NODE_EXTRA_CA_CERTS).
 * Rejects with DirectSocketError (connection refused/reset/timed out, `code` as the socket's)
 * or HttpParseError (malformed response), TypeError for an invalid header, or the signal's
 * reason when aborted. After the head, the same failures destroy the body with that error;
 * an abort destroys it with the signal's reason.
 */
export function directRequest(url: URL, init: DirectRequestInit): Promise<DirectResponse> {
  return new Promise((resolve, reject) => {
    const head = requestHead(url, init); // a throw here rejects
    const signal = init.signal;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const https = url.protocol === "https:";
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(url.port) || (https ? 443 : 80);
    let body: DirectBody | undefined;
    let failed = false;
    let paused = false;

    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      parser.abort();
      signal?.removeEventListener("abort", onAbort);
      if (body) {
        if (!body.destroyed) body.destroy(err as Error);
      } else {
        socket.destroy();
        reject(err);
      }
    };
    const onAbort = (): void => fail(signal?.reason);

    const parser = new ResponseParser(
      {
        onHead(parsed) {
          body = new DirectBody(socket);
          body.once("close", () => {
            signal?.removeEventListener("abort", onAbort);
            socket.destroy();
          });
          socket.setTimeout(init.bodyTimeoutMs ?? 60_000);
          paused = true; // until the caller attaches a reader
          resolve({ statusCode: parsed.statusCode, headers: parsed.headers, body });
        },
        onBody(view) {
          if (body && !body.deliver(view)) {
            paused = true;
            if (body.destroyed) parser.abort();
          }
        },
        onComplete() {
          signal?.removeEventListener("abort", onAbort);
          socket.setTimeout(0);
          body?.finish();
          socket.destroy();
        },
      },
      init.method,
    );

    const buffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
    const onread = {
      buffer,
      callback: (n: number): boolean => {
        if (failed) return false;
        paused = false;
        try {
          parser.feed(buffer.subarray(0, n));
        } catch (err) {
          fail(err);
          return false;
        }
        return !paused;
      },
    };
    const socket: Socket = https
      ? tlsConnect({
          ...init.tls,
          host,
          port,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          ALPNProtocols: ["http/1.1"],
          // `onread` is supported by tls.connect since Node 14.15 (missing from @types/node 20).
          onread,
        } as ConnectionOptions)
      : netConnect({ host, port, onread });
    socket.setNoDelay(true);
    socket.setTimeout(init.connectTimeoutMs ?? 30_000);
    socket.once(https ? "secureConnect" : "connect", () => {
      socket.setTimeout(init.headersTimeoutMs ?? 60_000);
    });
    socket.on("timeout", () => {
      const what = parser.inHead ? (socket.connecting ? "connect" : "headers") : "body";
      fail(new DirectSocketError(`UND_ERR_${what.toUpperCase()}_TIMEOUT`, `${what} timeout`));
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      fail(new DirectSocketError(err.code ?? "UND_ERR_SOCKET", err.message, err));
    });
    socket.on("end", () => {
      try {
        parser.end();
      } catch (err) {
        fail(
          err instanceof HttpParseError
            ? new DirectSocketError("UND_ERR_SOCKET", err.message)
            : err,
        );
      }
    });
    socket.on("close", () => {
      if (!parser.complete) {
        fail(new DirectSocketError("UND_ERR_SOCKET", "other side closed"));
      }
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.write(head);
  });
}

/** The request head (and body) as bytes; throws TypeError for an invalid header. */
function requestHead(url: URL, init: DirectRequestInit): Buffer {
  let text = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(init.headers)) {
    const key = name.toLowerCase();
    if (OWN_HEADERS.has(key)) continue;
    if (!TOKEN.test(name) || /[\r\n\0]/.test(value)) {
      throw new TypeError(`invalid request header ${JSON.stringify(name)}`);
    }
    text += `${key}: ${value}\r\n`;
  }
  text += "connection: close\r\n";
  const payload = init.body === undefined ? undefined : Buffer.from(init.body, "utf8");
  if (payload) text += `content-length: ${payload.length}\r\n`;
  text += "\r\n";
  const headBytes = Buffer.from(text, "latin1");
  return payload ? Buffer.concat([headBytes, payload]) : headBytes;
}
