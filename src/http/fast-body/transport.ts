import type { LookupFunction } from "node:net";
import * as net from "node:net";
import type * as tls from "node:tls";
import type {
  BodyTransport,
  BodyTransportSettings,
  DispatchInit,
  RawResponse,
} from "../response-body.js";
import { type Conn, type ExchangeOwner, exchange, undiciError } from "./exchange.js";

/**
 * The body fast path's transport (docs/design.md "The body fast path"; the only file of src/
 * that opens sockets besides undici): download GETs to the CDN, without a proxy, read with
 * `onread` into one reused 1 MiB buffer per connection, or into the memory the reader lends
 * (`BodyLender`: the part file's gather buffer, no copy), the body handed to the sink as views
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

class FastBodyTransport implements BodyTransport {
  readonly #settings: BodyTransportSettings;
  readonly #idle = new Map<string, Conn>();
  readonly #sessions = new Map<string, Buffer>();
  /** Origins that sent an answer the fast path refuses: left to undici for the rest of the run. */
  readonly #refused = new Set<string>();
  #closed = false;
  readonly #owner: ExchangeOwner = {
    isClosed: () => this.#closed,
    refuse: (origin) => this.#refused.add(origin),
    park: (conn) => this.#park(conn),
  };

  constructor(settings: BodyTransportSettings) {
    this.#settings = settings;
  }

  async request(init: DispatchInit): Promise<RawResponse | undefined> {
    if (this.#closed || init.method !== "GET" || !plainHeaders(init.headers)) return undefined;
    if (this.#refused.has(init.url.origin)) return undefined;
    const reused = this.#idle.get(init.url.origin);
    if (reused) {
      this.#idle.delete(init.url.origin);
      const answer = await exchange(reused, init, this.#owner).catch((err: Error) => err);
      // The server closed a kept-alive connection just before our request: a fresh one.
      if (!(answer instanceof Error)) return answer;
      if (!isEarlyClose(answer)) throw answer;
    }
    return exchange(this.#connect(init.url), init, this.#owner).then((a) => {
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
      target: () => undefined,
      used: false,
      headMs: this.#settings.idleMs,
    };
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const onread = {
      buffer: () => conn.target() ?? buffer, // asked before every read
      callback: (n: number, buf: Uint8Array) =>
        conn.onBytes(Buffer.from(buf.buffer, buf.byteOffset, n)),
    };
    const lookup: { lookup?: LookupFunction } = this.#settings.lookup
      ? { lookup: this.#settings.lookup }
      : {};
    if (url.protocol === "https:") {
      const session = this.#sessions.get(url.origin);
      const secureContext = this.#settings.secureContext();
      // node:tls only for an https origin: an http-only run never loads it
      conn.socket = process.getBuiltinModule("node:tls").connect({
        host,
        port,
        ...(net.isIP(host) ? {} : { servername: host }),
        ...(secureContext ? { secureContext } : {}),
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
    conn.target = () => undefined;
    socket.resume(); // a reader's pause may have stopped it: an idle connection keeps reading
    socket.unref();
    this.#idle.set(conn.origin, conn);
  }
}

/** Header names and values the fast path may write as they are (no CR, LF or control bytes). */
function plainHeaders(headers: Record<string, string>): boolean {
  return Object.entries(headers).every(
    ([name, value]) => HEADER_NAME.test(name) && name !== "host" && HEADER_TEXT.test(value),
  );
}

function isEarlyClose(err: Error): boolean {
  return (err as { earlyClose?: boolean }).earlyClose === true;
}
