import { MAX_INTERIM_ANSWERS } from "../framing-rules.js";
import type { ResponseHeaders } from "../response-body.js";

/**
 * The one place where svc-dl reads HTTP/1.1 itself (docs/design.md "The body fast path"): the
 * head of a CDN answer to a download GET. It accepts only the simplest well-formed answer,
 * refuses at once what breaks HTTP/1.1 framing, and leaves everything else to undici (the caller
 * closes the connection and repeats the request through undici, whose parser, llhttp, handles
 * every other case):
 *
 * - a status line `HTTP/1.1 <2xx to 5xx> <reason>` (reason: visible ASCII, space, tab);
 * - before it, at most {@link MAX_INTERIM_ANSWERS} interim answers `HTTP/1.1 1xx` (`100
 *   Continue`, `103 Early Hints`; not `101`), each a head of well-formed lines without
 *   `Content-Length` or `Transfer-Encoding`, skipped as RFC 9110 §15.2 says a client does;
 * - header lines `token ":" OWS value OWS`, values of visible ASCII with inner spaces/tabs
 *   (no obs-text, no control bytes, no bare CR or LF);
 * - exactly one `Content-Length` line of 1 to 15 digits (spaces before, nothing after), and no
 *   `Transfer-Encoding` at all; 204 and 304 have no body (at most one such line then);
 * - each head within {@link MAX_HEAD_BYTES} (undici's default limit).
 *
 * A violation (RFC 9112 §5.2, §6.3: a header line folded onto the next (obs-fold),
 * `Transfer-Encoding` with `Content-Length`, `Content-Length` twice, more interim answers than
 * the cap) is not a case for undici: the request fails at once, as llhttp would fail it.
 *
 * The body is then exactly `Content-Length` bytes. test/http/fast-body/framing.test.ts feeds
 * generated and mutated answers, split at every byte, to this and to llhttp and fails when
 * this accepts anything llhttp refuses or frames a body differently.
 */
export const MAX_HEAD_BYTES = 16 * 1024;

/** An accepted response head. */
export interface FastHead {
  status: number;
  /** Lower-case names; a repeated header as an array, in order (as undici gives them). */
  headers: ResponseHeaders;
  /** Body bytes that follow the head. */
  contentLength: number;
  /** Bytes of the head, status line to the empty line included. */
  headBytes: number;
  /** False when the server said `Connection: close`. */
  keepAlive: boolean;
}

/** The result of reading a head so far. */
export type HeadParse =
  | { kind: "more" }
  | { kind: "reject"; why: string }
  | { kind: "violation"; why: string }
  | { kind: "interim"; headBytes: number }
  | { kind: "head"; head: FastHead };

const STATUS_LINE = /^HTTP\/1\.1 ([1-5][0-9][0-9]) [\t\x20-\x7e]*$/;
const HEADER_LINE =
  /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[\t ]*([\x21-\x7e](?:[\t\x20-\x7e]*[\x21-\x7e])?)?[\t ]*$/;
/** What follows `Content-Length:`: spaces, then digits, nothing after (llhttp refuses a tab after). */
const LENGTH_VALUE = /^ *[0-9]{1,15}$/;

/**
 * Reads the head at the start of `data` (every byte received so far on this response).
 * `more` while the empty line has not arrived (and the head is still within the limit).
 */
export function parseHead(data: Buffer): HeadParse {
  const end = data.indexOf("\r\n\r\n", 0, "latin1");
  if (end < 0) {
    if (data.length >= MAX_HEAD_BYTES) return reject("head larger than 16 KiB");
    return bareLineBreak(data, data.length) ? reject("bare CR or LF") : { kind: "more" };
  }
  const headBytes = end + 4;
  if (headBytes > MAX_HEAD_BYTES) return reject("head larger than 16 KiB");
  if (bareLineBreak(data, end)) return reject("bare CR or LF");
  const lines = data.toString("latin1", 0, end).split("\r\n");
  const statusLine = STATUS_LINE.exec(lines[0] ?? "");
  const status = Number(statusLine?.[1] ?? 0);
  if (!statusLine || status === 101) {
    return reject("not a plain HTTP/1.1 status line of 1xx (not 101) to 5xx");
  }
  const interim = status < 200;
  const noBody = status === 204 || status === 304;
  const headers: ResponseHeaders = {};
  let lengths = 0;
  let transferEncoding = false;
  let badLength = false;
  let contentLength = -1;
  for (const line of lines.slice(1)) {
    if (line.startsWith(" ") || line.startsWith("\t")) {
      return violation("a header line folded onto the next (obs-fold, RFC 9112 §5.2)");
    }
    const m = HEADER_LINE.exec(line);
    if (!m?.[1]) return reject("a header line that is not token: value");
    const name = m[1].toLowerCase();
    const value = m[2] ?? "";
    if (name === "transfer-encoding") transferEncoding = true;
    if (name === "content-length") {
      lengths += 1;
      badLength ||= !LENGTH_VALUE.test(line.slice(line.indexOf(":") + 1));
      contentLength = Number(value);
    }
    const had = headers[name];
    headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  if (transferEncoding && lengths > 0) {
    return violation("Transfer-Encoding together with Content-Length (RFC 9112 §6.3)");
  }
  if (lengths > 1) return violation("Content-Length given more than once (RFC 9112 §6.3)");
  if (transferEncoding) return reject("Transfer-Encoding");
  if (badLength) return reject("a Content-Length that is not 1 to 15 digits");
  if (interim) {
    return lengths === 0 ? { kind: "interim", headBytes } : reject("an interim answer with a body");
  }
  if (!noBody && lengths !== 1) return reject("no Content-Length");
  if (noBody) contentLength = 0;
  const connection = headers.connection;
  const keepAlive = !(Array.isArray(connection) ? connection : [connection ?? ""]).some((v) =>
    v
      .toLowerCase()
      .split(",")
      .some((t) => t.trim() === "close"),
  );
  return { kind: "head", head: { status, headers, contentLength, headBytes, keepAlive } };
}

/** A CR not followed by LF, or an LF not preceded by CR, before `end`. */
function bareLineBreak(data: Buffer, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const b = data[i];
    if (b === 0x0a && data[i - 1] !== 0x0d) return true;
    if (b === 0x0d && i + 1 < data.length && data[i + 1] !== 0x0a) return true;
  }
  return false;
}

function reject(why: string): HeadParse {
  return { kind: "reject", why };
}

function violation(why: string): HeadParse {
  return { kind: "violation", why };
}

/**
 * Frames one response from the bytes of a connection, read by read, without copying the body:
 * {@link feed} returns where the body bytes of a read are (`[start, end)` in that read).
 */
export class ResponseFramer {
  head: FastHead | undefined;
  /** Body bytes still to come. */
  left = 0;
  /** Bytes arrived after the end of the body (the connection is then not reused). */
  extra = false;
  /** Interim (1xx) answers skipped so far. */
  interim = 0;
  /** Bytes of those interim answers (before the final head). */
  interimBytes = 0;
  #pending: Buffer = Buffer.alloc(0);

  /** True once the whole body has arrived. */
  get done(): boolean {
    return this.head !== undefined && this.left === 0;
  }

  /**
   * Takes one read. Returns the body range in `view`, `more` while the final head is
   * incomplete, the reason the answer is left to undici (`reject`), or the framing violation
   * that fails the request (`violation`).
   */
  feed(
    view: Buffer,
  ): { start: number; end: number } | "more" | { reject: string } | { violation: string } {
    let start = 0;
    if (!this.head) {
      const before = this.#pending.length;
      this.#pending = Buffer.concat([this.#pending, view]);
      let skipped = 0;
      for (;;) {
        const parsed = parseHead(this.#pending.subarray(skipped));
        if (parsed.kind === "more") {
          this.#pending = this.#pending.subarray(skipped);
          return "more";
        }
        if (parsed.kind === "reject") return { reject: parsed.why };
        if (parsed.kind === "violation") return { violation: parsed.why };
        if (parsed.kind === "interim") {
          if (++this.interim > MAX_INTERIM_ANSWERS) {
            return { violation: `more than ${MAX_INTERIM_ANSWERS} interim (1xx) answers` };
          }
          skipped += parsed.headBytes;
          this.interimBytes += parsed.headBytes;
          continue;
        }
        this.head = parsed.head;
        this.left = parsed.head.contentLength;
        this.#pending = Buffer.alloc(0);
        start = skipped + parsed.head.headBytes - before;
        break;
      }
    }
    const end = start + Math.min(view.length - start, this.left);
    this.left -= end - start;
    if (end < view.length) this.extra = true;
    return { start, end };
  }
}
