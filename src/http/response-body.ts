import type { LookupFunction } from "node:net";
import type { SecureContext } from "node:tls";

/** Response headers as undici gives them: lower-case names, repeated headers as arrays. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * A single-valued header (`content-range`, `etag`, `retry-after`...): the first value when the
 * header is repeated. For a list-valued header read {@link headerListValue}.
 */
export function headerValue(headers: Readonly<ResponseHeaders>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A list-valued header (structured-field lists and dictionaries such as `RateLimit-Policy`):
 * repeated values joined with ", ", as RFC 9110 §5.3 combines them.
 */
export function headerListValue(
  headers: Readonly<ResponseHeaders>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/**
 * Receives body bytes synchronously from the transport. A chunk is borrowed: it is valid only
 * during the call (the body fast path reuses its read buffer), so a sink that keeps bytes
 * copies them. Returning a promise pauses the socket until it settles (backpressure, e.g.
 * stdout); throwing aborts the response with that error.
 */
export type BodySink = (chunk: Buffer) => undefined | Promise<void>;

/**
 * Memory of the reader's for the transport's next socket read (zero copy): the body fast path
 * reads there, and the chunk then handed to the {@link BodySink} is a view of it. The reader
 * must leave that memory alone until its sink is called again; undefined: the transport reads
 * into its own buffer.
 */
export type BodyLender = () => Buffer | undefined;

/** Most bytes held while nobody reads the body yet, before the socket is paused. */
const EARLY_BYTES = 64 * 1024;
/** Most bytes read and thrown away by {@link ResponseBody.dump} to keep a connection alive. */
const DUMP_LIMIT = 64 * 1024;

/**
 * The body of one response, fed by the dispatcher's data callback with no Readable in between
 * (the download hot path). Exactly one reader: {@link consume} (a synchronous sink), {@link text}
 * or {@link dump}. Bytes that arrive before the reader is attached are held (at most 64 KiB, then
 * the socket is paused). While a chunk's sink call has not settled (it returned a promise), the
 * socket stays paused and the sink is not called again: bytes the transport still hands over
 * (TLS decrypts what it has already read) are held as copies and delivered in order once it
 * settles; the socket resumes only then. Errors of the transfer (connection lost, bad framing,
 * silence past the body timeout) reject the reader's promise with undici's error.
 */
export class ResponseBody {
  #controller: BodyController | undefined;
  /** Copies of bytes not delivered yet: before the reader came, or while a sink call waits. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** A sink call returned a promise that has not settled yet. */
  #waiting = false;
  #sink: BodySink | undefined;
  #lend: BodyLender | undefined;
  #ended = false;
  #error: Error | undefined;
  #settle: { resolve: () => void; reject: (err: Error) => void } | undefined;

  /** @internal */
  attach(controller: BodyController): void {
    this.#controller = controller;
  }

  /** @internal a chunk from the socket */
  push(chunk: Buffer): void {
    if (this.#sink && !this.#waiting && this.#held.length === 0) {
      this.#deliver(chunk);
      return;
    }
    this.#held.push(Buffer.from(chunk)); // borrowed: copied to be kept
    this.#heldBytes += chunk.length;
    if (this.#sink || this.#heldBytes >= EARLY_BYTES) this.#controller?.pause();
  }

  /** @internal the body is complete */
  end(): void {
    this.#ended = true;
    if (this.#sink && !this.#waiting && this.#held.length === 0) this.#settle?.resolve();
  }

  /** @internal the transfer failed (after the body's end it no longer matters) */
  fail(err: Error): void {
    if (this.#ended) return;
    this.#reject(err);
  }

  /**
   * @internal where the next socket read may land: the reader's memory, when it lends some and
   * nothing is held or waiting (a read must never land on bytes a sink call still holds)
   */
  target(): Buffer | undefined {
    if (!this.#lend || this.#ended || this.#error || this.#waiting || this.#held.length > 0) {
      return undefined;
    }
    return this.#lend();
  }

  /** True once the whole body arrived. */
  get complete(): boolean {
    return this.#ended;
  }

  /**
   * Sends every body byte to `sink` (see {@link BodySink}), one call at a time: after a call
   * that returns a promise, the next comes once it settled. `lend`, when given, offers memory
   * for the socket reads ({@link BodyLender}). Resolves once the body ended and the last sink
   * call settled; rejects with the transfer's error or what the sink threw or rejected with
   * (the response is then aborted).
   */
  consume(sink: BodySink, lend?: BodyLender): Promise<void> {
    if (this.#sink) return Promise.reject(new Error("response body read twice"));
    this.#sink = sink;
    this.#lend = lend;
    return new Promise<void>((resolve, reject) => {
      this.#settle = { resolve, reject };
      if (this.#error) reject(this.#error);
      else this.#drain();
    });
  }
  /**
   * Reads at most `limitBytes` as UTF-8 text; past it the response is aborted (an endless body
   * cannot hold us). Returns the text and whether it was cut.
   */
  async text(limitBytes: number): Promise<{ text: string; truncated: boolean }> {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const cut = new Error("body limit reached");
    try {
      await this.consume((chunk) => {
        if (size + chunk.length > limitBytes) {
          chunks.push(Buffer.from(chunk.subarray(0, limitBytes - size)));
          truncated = true;
          throw cut;
        }
        chunks.push(Buffer.from(chunk)); // borrowed: copied to be kept
        size += chunk.length;
        return undefined;
      });
    } catch (err) {
      if (err !== cut) throw err;
    }
    return { text: Buffer.concat(chunks).toString("utf8"), truncated };
  }

  /**
   * Discards the body; never throws. A short body (≤ 64 KiB) is read to its end so the
   * connection stays alive for the next request; a longer one is aborted.
   */
  dump(): void {
    if (this.#sink) return;
    let seen = 0;
    this.consume((chunk) => {
      seen += chunk.length;
      if (seen > DUMP_LIMIT) throw new Error("body dumped");
      return undefined;
    }).catch(() => undefined);
  }

  /** Abandons the body at once: the connection is closed (a large body nobody needs). */
  abort(): void {
    if (this.#ended || this.#error) return;
    this.#sink ??= () => undefined;
    this.#settle ??= { resolve: () => undefined, reject: () => undefined };
    this.#controller?.abort(new Error("response body abandoned"));
  }

  #deliver(chunk: Buffer): void {
    let result: undefined | Promise<void>;
    try {
      result = this.#sink?.(chunk);
    } catch (err) {
      this.#abortWith(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (!result) return;
    this.#waiting = true;
    this.#controller?.pause();
    result.then(
      () => {
        this.#waiting = false;
        this.#drain();
      },
      (err: unknown) => this.#abortWith(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /**
   * Delivers the held bytes in order until a sink call waits; then, with nothing held and
   * nothing waiting, resolves the reader at the body's end or resumes the socket.
   */
  #drain(): void {
    while (!this.#waiting && !this.#error && this.#held.length > 0) {
      const chunk = this.#held.shift() as Buffer;
      this.#heldBytes -= chunk.length;
      this.#deliver(chunk);
    }
    if (this.#waiting || this.#error) return;
    // resumed at the end too: a transfer paused while a sink call waited is released, so the
    // kept-alive connection can carry the next request
    this.#controller?.resume();
    if (this.#ended) this.#settle?.resolve();
  }

  /**
   * The reader failed (its sink threw or rejected): rejected even when every byte had arrived
   * already (a paced or backpressured sink call can fail after the body's end), else the reader
   * would wait for ever.
   */
  #abortWith(err: Error): void {
    this.#reject(err);
    this.#controller?.abort(err);
  }

  /** Ends the reader with `err` (the first failure wins) and drops what is held. */
  #reject(err: Error): void {
    if (this.#error) return;
    this.#error = err;
    this.#held = [];
    this.#heldBytes = 0;
    this.#settle?.reject(err);
  }
}

/** What a transport lets {@link ResponseBody} do with the transfer. */
export interface BodyController {
  pause(): void;
  resume(): void;
  abort(err: Error): void;
}

/** Connection settings of the run, for a {@link BodyTransport}. */
export interface BodyTransportSettings {
  /** The run's SecureContext at each TLS connect (src/http/tls-trust.ts); undefined: Node's. */
  secureContext: () => SecureContext | undefined;
  lookup: LookupFunction | undefined;
  /** Silence limit while connecting, for the head and between body bytes, in ms. */
  idleMs: number;
}

/**
 * A transport for download bodies that the client uses instead of undici where it may
 * (src/http/fast-body/: GET to the CDN, no proxy).
 */
export interface BodyTransport {
  /**
   * The response, or undefined when the answer is not one this transport takes (the client
   * then repeats the request through undici). Rejects like `dispatchRequest` (dispatch-request.ts).
   */
  request(init: DispatchInit): Promise<RawResponse | undefined>;
  /** Closes its idle connections. */
  close(): void;
}

/** One request for `dispatchRequest` (dispatch-request.ts) or a {@link BodyTransport}. */
export interface DispatchInit {
  url: URL;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** A response whose body is still to be read (or dumped) by the caller. */
export interface RawResponse {
  statusCode: number;
  headers: ResponseHeaders;
  body: ResponseBody;
}
