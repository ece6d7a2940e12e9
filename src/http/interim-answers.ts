/**
 * Interim answers on the connections undici carries (cli-contract "Networks"; RFC 9110 §15.2:
 * a client skips a 1xx answer it did not ask for). undici 7 destroys the connection on a
 * `100 Continue` it did not ask for (`bad response`); this filter sits between the socket and
 * undici's parser and removes interim answers (`1xx`, not `101`) that come before a final
 * answer, so undici only ever sees final heads.
 *
 * How it knows where an answer begins: undici sends one request at a time per connection
 * (pipelining 1, src/http/dispatcher.ts) and publishes every request head it writes on the
 * diagnostics channel `undici:client:sendHeaders` (a documented undici hook) before writing it.
 * From then until the first final head, what arrives is held until it can be judged:
 *
 * - bytes that cannot begin `HTTP/1.1 1` are a final answer (or junk): passed on untouched, and
 *   everything after them too, until the next request (a body is never looked at or copied);
 * - an interim head is read whole by the body fast path's head parser
 *   (src/http/fast-body/framing.ts {@link parseHead}, differential-tested against llhttp) and
 *   dropped; at most {@link MAX_INTERIM_ANSWERS} per request, one more, or an interim head that
 *   breaks framing (obs-fold, `Transfer-Encoding` with `Content-Length`), destroys the
 *   connection with a framing error (`bad_framing`, exit 7, not retried: as the fast path does);
 * - anything that parser does not accept as an interim head (a `101`, a head over 16 KiB, a
 *   malformed line) is passed on untouched, for undici to judge as it did before.
 *
 * The bytes come in through the socket's own `push` (what node:net calls for every read and at
 * the end of the stream); the filter replaces that method on the one socket it is given.
 */
import { subscribe } from "node:diagnostics_channel";
import type { Readable } from "node:stream";
import { MAX_HEAD_BYTES, parseHead } from "./fast-body/framing.js";
import { framingError, MAX_INTERIM_ANSWERS } from "./framing-rules.js";

/** undici's diagnostics channel of every request head it is about to write. */
const SEND_HEADERS = "undici:client:sendHeaders";

/** The start every interim status line has. */
const INTERIM_START = Buffer.from("HTTP/1.1 1", "latin1");

const filters = new WeakMap<object, InterimFilter>();
let listening = false;

/** The interim-answer filter of one connection. */
class InterimFilter {
  readonly #socket: Readable;
  readonly #push: Readable["push"];
  /** A request was sent and its final head has not arrived yet. */
  #expecting = false;
  /** Reads of a possible interim head, not yet whole, and their length. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Interim answers dropped for the current request. */
  #dropped = 0;

  constructor(socket: Readable) {
    this.#socket = socket;
    this.#push = socket.push;
    socket.push = (chunk: unknown, encoding?: BufferEncoding) => this.#take(chunk, encoding);
  }

  /** undici is about to write a request head: the next bytes begin its answer. */
  expectHead(): void {
    this.#expecting = true;
    this.#dropped = 0;
  }

  #take(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (!this.#expecting || !Buffer.isBuffer(chunk)) {
      // the end of the stream with a partial head held: undici sees what came, then the end
      if (chunk === null && this.#heldBytes > 0) this.#pass(this.#heldData());
      return this.#push.call(this.#socket, chunk, encoding);
    }
    if (this.#heldBytes > 0) {
      this.#held.push(chunk);
      this.#heldBytes += chunk.length;
      // A head read in small pieces is judged once per line, not once per read: until a line
      // break or the size limit, more of a begun interim status line is only kept.
      const undecided = this.#heldBytes < MAX_HEAD_BYTES && !lineBreakIn(chunk);
      if (undecided && this.#heldBytes - chunk.length >= INTERIM_START.length) return true;
    }
    let data = this.#heldBytes > 0 ? this.#heldData() : chunk;
    for (;;) {
      const n = Math.min(data.length, INTERIM_START.length);
      if (INTERIM_START.compare(data, 0, n, 0, n) !== 0) return this.#pass(data);
      const parsed = n === INTERIM_START.length ? parseHead(data) : { kind: "more" as const };
      if (parsed.kind === "more") {
        this.#held = [data];
        this.#heldBytes = data.length;
        return true;
      }
      if (parsed.kind === "violation") return this.#fail(parsed.why);
      if (parsed.kind !== "interim") return this.#pass(data);
      if (++this.#dropped > MAX_INTERIM_ANSWERS) {
        return this.#fail(`more than ${MAX_INTERIM_ANSWERS} interim (1xx) answers`);
      }
      data = data.subarray(parsed.headBytes);
      if (data.length === 0) return true;
    }
  }

  /** The held bytes as one buffer; nothing is held afterwards. */
  #heldData(): Buffer {
    const data = this.#held.length === 1 ? this.#held[0] : undefined;
    const whole = data ?? Buffer.concat(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    return whole;
  }

  /** Ends the connection with the framing error `why` (what undici's request fails with). */
  #fail(why: string): boolean {
    this.#expecting = false;
    this.#held = [];
    this.#heldBytes = 0;
    this.#socket.destroy(framingError(why));
    return false;
  }

  /** Hands `data` to undici and everything after it, until the next request. */
  #pass(data: Buffer): boolean {
    this.#expecting = false;
    this.#held = [];
    this.#heldBytes = 0;
    return this.#push.call(this.#socket, data);
  }
}

/** A CR or LF in `data`. */
function lineBreakIn(data: Buffer): boolean {
  return data.includes(0x0a) || data.includes(0x0d);
}

/**
 * Puts the interim-answer filter on `socket` (a connection undici will carry: TCP, TLS, or TLS
 * over a proxy's tunnel). Idempotent. The socket must not be in object mode or have an
 * encoding set (undici never does either).
 */
export function skipInterimAnswers(socket: Readable): void {
  if (filters.has(socket)) return;
  if (!listening) {
    listening = true;
    subscribe(SEND_HEADERS, (message) => {
      const socket = (message as { socket?: unknown } | undefined)?.socket;
      if (typeof socket === "object" && socket !== null) filters.get(socket)?.expectHead();
    });
  }
  filters.set(socket, new InterimFilter(socket));
}
