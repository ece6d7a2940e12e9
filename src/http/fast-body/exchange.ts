import type * as net from "node:net";
import { framingError } from "../framing-rules.js";
import type { BodyController, DispatchInit, RawResponse } from "../response-body.js";
import { ResponseBody } from "../response-body.js";
import { ResponseFramer } from "./framing.js";

/** One connection of the body fast path: its socket, and whoever reads it now. */
export interface Conn {
  socket: net.Socket;
  origin: string;
  onBytes: (view: Buffer) => boolean;
  onEnd: (err: Error) => void;
  onTimeout: () => void;
  /** Where the next read lands, when the reader lends memory (undefined: the connection's buffer). */
  target: () => Buffer | undefined;
  /** Bytes of a response seen on it (0: a reused connection may have been closed by the server). */
  used: boolean;
  /** Longest wait for a whole response head, from the request on, in ms. */
  headMs: number;
}

/** What an exchange asks of the transport that owns its connection. */
export interface ExchangeOwner {
  /** True once the transport is closed: a finished connection is then not kept. */
  isClosed(): boolean;
  /** The origin sent a head the fast path refuses: leave it to undici from now on. */
  refuse(origin: string): void;
  /** Keeps a connection whose response ended cleanly, for the next request to its origin. */
  park(conn: Conn): void;
}

/**
 * Sends one GET on `conn` (docs/design.md "The body fast path") and resolves its response as
 * soon as the final head is read (interim 1xx answers skipped; the body then streams through
 * {@link ResponseBody}), undefined when {@link ResponseFramer} leaves the answer to undici (the
 * connection is closed and the origin refused), or the Error that ended the exchange before the
 * head: undici's codes (UND_ERR_SOCKET; UND_ERR_HEADERS_TIMEOUT when no whole head arrived
 * within `conn.headMs` of the request, however slowly bytes came), an `HPE_` code when the
 * answer breaks HTTP/1.1 framing (not retried), the signal's reason, `earlyClose` set when a
 * reused connection was closed before any byte. Errors after the head fail the body instead (UND_ERR_BODY_TIMEOUT...).
 */
export function exchange(
  conn: Conn,
  init: DispatchInit,
  owner: ExchangeOwner,
): Promise<RawResponse | undefined | Error> {
  conn.socket.ref();
  return new Promise((resolve) => new Exchange(conn, init, owner, resolve).start());
}

/** The state of one request/response on a connection, as the socket's events drive it. */
class Exchange {
  readonly #framer = new ResponseFramer();
  readonly #body = new ResponseBody();
  readonly #stash: Buffer[] = [];
  #started = false;
  #finished = false;
  #paused = false;
  #headTimer: NodeJS.Timeout | undefined;

  readonly conn: Conn;
  readonly init: DispatchInit;
  readonly owner: ExchangeOwner;
  readonly resolve: (answer: RawResponse | undefined | Error) => void;

  constructor(
    conn: Conn,
    init: DispatchInit,
    owner: ExchangeOwner,
    resolve: (answer: RawResponse | undefined | Error) => void,
  ) {
    this.conn = conn;
    this.init = init;
    this.owner = owner;
    this.resolve = resolve;
  }

  start(): void {
    const { conn, init } = this;
    this.#body.attach(this.#controller());
    conn.onBytes = (view) => this.#onBytes(view);
    conn.target = () =>
      this.#started && !this.#paused && !this.#finished ? this.#body.target() : undefined;
    conn.onEnd = (err) => {
      if (this.#finished) return;
      this.#fail(conn.used || this.#started ? err : Object.assign(err, { earlyClose: true }));
    };
    conn.onTimeout = () => {
      if (this.#paused) return; // the reader holds the transfer (backpressure), not the server
      this.#fail(
        this.#started
          ? undiciError("UND_ERR_BODY_TIMEOUT", "Body Timeout Error")
          : undiciError("UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error"),
      );
    };
    if (init.signal?.aborted) {
      this.#onAbort();
      return;
    }
    init.signal?.addEventListener("abort", this.#onAbort, { once: true });
    // the whole head (connect, TLS, interim answers included) within one silence limit, as
    // undici's headersTimeout: a server sending a byte now and then cannot hold the request
    this.#headTimer = setTimeout(
      () => this.#fail(undiciError("UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error")),
      conn.headMs,
    );
    conn.socket.write(requestHead(init));
  }

  readonly #onAbort = (): void => {
    const reason: unknown = this.init.signal?.reason;
    this.#fail(reason instanceof Error ? reason : new Error("aborted"));
  };

  #settle(): void {
    this.#finished = true;
    clearTimeout(this.#headTimer);
    this.init.signal?.removeEventListener("abort", this.#onAbort);
  }

  #fail(err: Error): void {
    if (this.#finished) return;
    this.#settle();
    this.conn.socket.destroy();
    if (this.#started) this.#body.fail(err);
    else this.resolve(err);
  }

  #complete(): void {
    const { conn, owner } = this;
    this.#settle();
    this.#body.end();
    const head = this.#framer.head;
    if (head?.keepAlive && !this.#framer.extra && !owner.isClosed() && !conn.socket.destroyed) {
      owner.park(conn);
    } else conn.socket.destroy();
  }

  #deliver(view: Buffer): void {
    if (view.length === 0) return;
    if (this.#paused) this.#stash.push(Buffer.from(view));
    else this.#body.push(view);
  }

  #controller(): BodyController {
    const { socket } = this.conn;
    return {
      pause: () => {
        this.#paused = true;
        socket.pause();
      },
      resume: () => {
        this.#paused = false;
        while (this.#stash.length > 0 && !this.#paused) {
          this.#body.push(this.#stash.shift() as Buffer);
        }
        if (this.#paused) return;
        if (this.#framer.done && this.#stash.length === 0 && !this.#finished) this.#complete();
        else socket.resume();
      },
      abort: (err: Error) => this.#fail(err),
    };
  }

  /** Feeds socket bytes to the framer; returns false to stop reading into the buffer. */
  #onBytes(view: Buffer): boolean {
    const { conn } = this;
    if (this.#finished) return false;
    conn.used = true;
    const r = this.#framer.feed(view);
    if (r === "more") return true;
    if ("violation" in r) {
      this.#fail(framingError(r.violation));
      return false;
    }
    if ("reject" in r) {
      this.owner.refuse(conn.origin);
      this.#settle();
      conn.socket.destroy();
      this.resolve(undefined);
      return false;
    }
    if (!this.#started) {
      this.#started = true;
      clearTimeout(this.#headTimer);
      const head = this.#framer.head;
      if (!head) return false;
      this.resolve({ statusCode: head.status, headers: head.headers, body: this.#body });
    }
    this.#deliver(view.subarray(r.start, r.end));
    if (this.#framer.done && !this.#paused && !this.#finished) this.#complete();
    return !this.#paused; // a parked connection keeps reading, to notice the server closing it
  }
}

function requestHead(init: DispatchInit): string {
  const { host, pathname, search } = init.url;
  let head = `GET ${pathname}${search} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(init.headers)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n`;
}

/** An Error with one of undici's codes, so src/http/classify.ts treats both transports alike. */
export function undiciError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
