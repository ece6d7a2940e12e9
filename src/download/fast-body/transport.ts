import type { LookupFunction } from "node:net";
import * as net from "node:net";
import * as tls from "node:tls";
import type {
  BodyController,
  BodyTransport,
  BodyTransportSettings,
  DispatchInit,
  RawResponse,
} from "../../http/response-body.js";
import { ResponseBody } from "../../http/response-body.js";
import { ResponseFramer } from "./framing.js";

/**
 * The body fast path's transport (docs/design.md "The body fast path"; the only file of src/
 * that opens sockets besides undici): download GETs to the CDN, without a proxy, read with
 * `onread` into one reused 1 MiB buffer per connection, the body handed to the sink as views
 * of that buffer (borrowed: valid during the sink call only). Keep-alive per origin and TLS
 * session reuse. The head goes through {@link ResponseFramer}; anything it refuses closes the
 * connection and resolves undefined, so the client repeats the request through undici (and
 * sends every later request to that origin through undici too).
 * Errors carry undici's codes (UND_ERR_SOCKET, UND_ERR_*_TIMEOUT) so src/http/classify.ts
 * treats them alike.
 */
export function createFastBodyTransport(settings: BodyTransportSettings): BodyTransport {
  return new FastBodyTransport(settings);
}

const READ_BYTES = 1 << 20;
const HEADER_TEXT = /^[\t\x20-\x7e]*$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** One connection: its socket, read buffer, and whoever reads it now. */
interface Conn {
  socket: net.Socket;
  origin: string;
  onBytes: (view: Buffer) => boolean;
  onEnd: (err: Error) => void;
  onTimeout: () => void;
  /** Bytes of a response seen on it (0: a reused connection may have been closed by the server). */
  used: boolean;
}

class FastBodyTransport implements BodyTransport {
  readonly #settings: BodyTransportSettings;
  readonly #idle = new Map<string, Conn>();
  readonly #sessions = new Map<string, Buffer>();
  /** Origins that sent an answer the fast path refuses: left to undici for the rest of the run. */
  readonly #refused = new Set<string>();
  #closed = false;

  constructor(settings: BodyTransportSettings) {
    this.#settings = settings;
  }

  async request(init: DispatchInit): Promise<RawResponse | undefined> {
    if (this.#closed || init.method !== "GET" || !plainHeaders(init.headers)) return undefined;
    if (this.#refused.has(init.url.origin)) return undefined;
    const reused = this.#idle.get(init.url.origin);
    if (reused) {
      this.#idle.delete(init.url.origin);
      const answer = await this.#exchange(reused, init).catch((err: Error) => err);
      // The server closed a kept-alive connection just before our request: a fresh one.
      if (!(answer instanceof Error)) return answer;
      if (!isEarlyClose(answer)) throw answer;
    }
    return this.#exchange(this.#connect(init.url), init).then((a) => {
      if (a instanceof Error) throw a;
      return a;
    });
  }

  close(): void {
    this.#closed = true;
    for (const conn of this.#idle.values()) conn.socket.destroy();
    this.#idle.clear();
  }

  #connect(url: URL): Conn {
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    const conn: Conn = {
      socket: undefined as unknown as net.Socket,
      origin: url.origin,
      onBytes: () => false,
      onEnd: () => undefined,
      onTimeout: () => conn.socket.destroy(),
      used: false,
    };
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const onread = {
      buffer,
      callback: (n: number, buf: Uint8Array) =>
        conn.onBytes(Buffer.from(buf.buffer, buf.byteOffset, n)),
    };
    const lookup: { lookup?: LookupFunction } = this.#settings.lookup
      ? { lookup: this.#settings.lookup }
      : {};
    if (url.protocol === "https:") {
      const session = this.#sessions.get(url.origin);
      conn.socket = tls.connect({
        host,
        port,
        ...(net.isIP(host) ? {} : { servername: host }),
        ...(this.#settings.ca ? { ca: this.#settings.ca } : {}),
        ...(session ? { session } : {}),
        ALPNProtocols: ["http/1.1"],
        onread,
        ...lookup,
      } as tls.ConnectionOptions);
      conn.socket.on("session", (s: Buffer) => this.#sessions.set(url.origin, s));
    } else {
      conn.socket = net.connect({ host, port, onread, ...lookup } as net.NetConnectOpts);
    }
    conn.socket.setNoDelay(true);
    conn.socket.setTimeout(this.#settings.idleMs);
    conn.socket.on("timeout", () => conn.onTimeout());
    conn.socket.on("error", (err) => conn.onEnd(err));
    conn.socket.on("close", () => {
      if (this.#idle.get(conn.origin) === conn) this.#idle.delete(conn.origin);
      conn.onEnd(undiciError("UND_ERR_SOCKET", "other side closed"));
    });
    return conn;
  }

  /** Sends the request on `conn`; resolves the response, undefined (refused head), or an Error. */
  #exchange(conn: Conn, init: DispatchInit): Promise<RawResponse | undefined | Error> {
    const { socket } = conn;
    socket.ref();
    return new Promise((resolve) => {
      const framer = new ResponseFramer();
      const body = new ResponseBody();
      let started = false;
      let finished = false;
      let paused = false;
      const stash: Buffer[] = [];
      const signal = init.signal;
      const settle = (): void => {
        finished = true;
        signal?.removeEventListener("abort", onAbort);
      };
      const fail = (err: Error): void => {
        if (finished) return;
        settle();
        socket.destroy();
        if (started) body.fail(err);
        else resolve(err);
      };
      const onAbort = (): void => {
        const reason: unknown = signal?.reason;
        fail(reason instanceof Error ? reason : new Error("aborted"));
      };
      const complete = (): void => {
        settle();
        body.end();
        if (framer.head?.keepAlive && !framer.extra && !this.#closed && !socket.destroyed) {
          this.#park(conn);
        } else socket.destroy();
      };
      const deliver = (view: Buffer): void => {
        if (view.length === 0) return;
        if (paused) stash.push(Buffer.from(view));
        else body.push(view);
      };
      const controller: BodyController = {
        pause() {
          paused = true;
          socket.pause();
        },
        resume() {
          paused = false;
          while (stash.length > 0 && !paused) body.push(stash.shift() as Buffer);
          if (!paused) {
            if (framer.done && stash.length === 0 && !finished) complete();
            else socket.resume();
          }
        },
        abort(err: Error) {
          fail(err);
        },
      };
      body.attach(controller);
      conn.onBytes = (view) => {
        if (finished) return false;
        conn.used = true;
        const r = framer.feed(view);
        if (r === "more") return true;
        if ("reject" in r) {
          this.#refused.add(conn.origin);
          settle();
          socket.destroy();
          resolve(undefined);
          return false;
        }
        if (!started) {
          started = true;
          const head = framer.head;
          if (!head) return false;
          resolve({ statusCode: head.status, headers: head.headers, body });
        }
        deliver(view.subarray(r.start, r.end));
        if (framer.done && !paused && !finished) complete();
        return !paused; // a parked connection keeps reading, to notice the server closing it
      };
      conn.onEnd = (err) => {
        if (finished) return;
        fail(conn.used || started ? err : Object.assign(err, { earlyClose: true }));
      };
      conn.onTimeout = () => {
        if (paused) return; // the reader holds the transfer (backpressure), not the server
        fail(
          started
            ? undiciError("UND_ERR_BODY_TIMEOUT", "Body Timeout Error")
            : undiciError("UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error"),
        );
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      socket.write(requestHead(init));
    });
  }

  /** Keeps a connection for the next request to its origin (one per origin; unref'd). */
  #park(conn: Conn): void {
    const { socket } = conn;
    if (this.#idle.has(conn.origin)) {
      socket.destroy();
      return;
    }
    conn.used = false;
    conn.onBytes = () => {
      socket.destroy(); // nothing may arrive on an idle connection
      return false;
    };
    conn.onEnd = () => undefined;
    conn.onTimeout = () => socket.destroy();
    socket.resume(); // a reader's pause may have stopped it: an idle connection keeps reading
    socket.unref();
    this.#idle.set(conn.origin, conn);
  }
}

function requestHead(init: DispatchInit): string {
  const { host, pathname, search } = init.url;
  let head = `GET ${pathname}${search} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(init.headers)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n`;
}

/** Header names and values the fast path may write as they are (no CR, LF or control bytes). */
function plainHeaders(headers: Record<string, string>): boolean {
  return Object.entries(headers).every(
    ([name, value]) => HEADER_NAME.test(name) && name !== "host" && HEADER_TEXT.test(value),
  );
}

function undiciError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function isEarlyClose(err: Error): boolean {
  return (err as { earlyClose?: boolean }).earlyClose === true;
}
