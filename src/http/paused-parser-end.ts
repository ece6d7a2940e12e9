/**
 * The end of a connection while its body is paused, on the connections undici carries
 * (cli-contract "Downloads": `--limit-rate` and a slow `-o -` reader pause the socket, never
 * buffer). undici 7's HTTP/1.1 parser (`lib/dispatcher/client-h1.js`) asserts in `finish()`
 * that it is not paused; when an answer with `Connection: close` (or one that ends at the
 * close) was paused by backpressure on its last bytes and the server then closes the
 * connection, the socket's `end` handler calls `finish()` and the AssertionError ends the whole
 * process, uncatchable (nodejs/undici#5360). undici fixed it in 8.6 (nodejs/undici#5474); no
 * undici 7 release has the fix, and undici 8 needs Node 22.19 or later.
 *
 * This is that fix, put on each parser of the run's own connections (never a prototype, never
 * another client's connection): before `finish()`, a paused parser is resumed and fed what is
 * still buffered on the socket, so a body with a length completes (its remaining bytes go to the
 * body, which holds them while its reader waits: src/http/response-body.ts), a body that ends at
 * the close is completed by `finish()`, and a body cut short fails the transfer as before.
 */
import { subscribe } from "node:diagnostics_channel";

/** undici's diagnostics channel of every connection it has set up (its parser attached). */
const CONNECTED = "undici:client:connected";

const EMPTY = Buffer.alloc(0);

/** What the fix uses of undici 7's HTTP/1.1 `Parser` (lib/dispatcher/client-h1.js). */
interface H1Parser {
  paused: boolean;
  ptr: number | null;
  socket: { read(): Buffer | null };
  llhttp: { llhttp_resume(ptr: number): void };
  execute(data: Buffer): void;
  finish(): unknown;
}

/** Sockets of the run's own connections, until undici has attached its parser. */
const pending = new WeakSet<object>();
let listening = false;

/**
 * Marks `socket` (a connection undici is about to carry: TCP, TLS, or TLS over a proxy's
 * tunnel) so that its HTTP/1.1 parser, once undici attaches it, finishes a paused body at the
 * end of the connection instead of crashing the process. Idempotent.
 */
export function finishPausedBodyAtEnd(socket: object): void {
  pending.add(socket);
  if (listening) return;
  listening = true;
  subscribe(CONNECTED, (message) => {
    const socket = (message as { socket?: unknown } | undefined)?.socket;
    if (typeof socket !== "object" || socket === null || !pending.has(socket)) return;
    pending.delete(socket);
    const parser = parserOf(socket);
    if (parser) guardFinish(parser);
  });
}

/** undici's parser of `socket` (its `kParser`, `Symbol('parser')`), when it has the known shape. */
function parserOf(socket: object): H1Parser | undefined {
  const key = Object.getOwnPropertySymbols(socket).find((s) => s.description === "parser");
  const parser = key === undefined ? undefined : (socket as Record<symbol, unknown>)[key];
  if (typeof parser !== "object" || parser === null) return undefined;
  const p = parser as Partial<H1Parser>;
  const known =
    typeof p.finish === "function" &&
    typeof p.execute === "function" &&
    typeof p.paused === "boolean" &&
    typeof p.socket?.read === "function" &&
    typeof p.llhttp?.llhttp_resume === "function";
  return known ? (parser as H1Parser) : undefined;
}

/** Replaces `parser.finish` (its own property) with one that completes a paused body first. */
function guardFinish(parser: H1Parser): void {
  const finish = parser.finish;
  parser.finish = function finishAfterPause(this: H1Parser) {
    completePaused(this);
    return finish.call(this);
  };
}

/**
 * undici 8's `Parser.finish` preamble (nodejs/undici#5474): resume across pauses and drain what
 * the socket still holds; a body with a length reaches its end here, one that ends at the close
 * stays paused (its length is unknown) and is resumed once more for `finish()` to complete.
 */
function completePaused(parser: H1Parser): void {
  if (!parser.paused || parser.ptr === null) return;
  let data: Buffer;
  do {
    parser.llhttp.llhttp_resume(parser.ptr);
    parser.paused = false;
    data = parser.socket.read() ?? EMPTY;
    parser.execute(data);
  } while (parser.paused && data.length > 0 && parser.ptr !== null);
  if (parser.paused && parser.ptr !== null) {
    parser.llhttp.llhttp_resume(parser.ptr);
    parser.paused = false;
  }
}
