/**
 * An incremental HTTP/1.1 response parser for the download transport: status line,
 * headers, then the body framed by `Transfer-Encoding: chunked`, `Content-Length`, or the end
 * of the connection (RFC 9112 §6.3). It never keeps a reference to the bytes it is fed: body
 * bytes are handed to `onBody` as views of the input, valid only during that call, so the
 * caller can read every socket chunk into one reused buffer. Only small pieces (the response
 * head, a chunk-size line) are copied, bounded by {@link MAX_HEAD_BYTES}.
 */

/** Response headers as undici gives them: lower-case names, repeated names as arrays. */
export type ParsedHeaders = Record<string, string | string[]>;

/** The parsed status line and headers of the final (non-1xx) response. */
export interface ResponseHead {
  statusCode: number;
  headers: ParsedHeaders;
}

/** Callbacks of {@link ResponseParser}. */
export interface ParserEvents {
  /** The head of the final response; called once. */
  onHead(head: ResponseHead): void;
  /** Body bytes: a view of the fed buffer, valid only during the call. */
  onBody(view: Buffer): void;
  /** The body is complete (its framing says so). */
  onComplete(): void;
}

/** A malformed response. */
export class HttpParseError extends Error {
  override name = "HttpParseError";
  readonly code = "HPE_INVALID_RESPONSE";
}

/** Most bytes of a response head (status line + headers) or of one chunk-size/trailer line. */
export const MAX_HEAD_BYTES = 64 * 1024;

type Phase =
  | "head"
  | "length"
  | "chunk-size"
  | "chunk-data"
  | "chunk-crlf"
  | "trailers"
  | "eof"
  | "done";

const CR = 13;
const LF = 10;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text, SP and HTAB; no CR, LF or NUL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Parses one response to a request whose method was `method` (a HEAD response has no body).
 * Feed socket bytes with {@link feed}; call {@link end} when the connection ends. Throws
 * HttpParseError on a malformed response or an early end.
 */
export class ResponseParser {
  #phase: Phase = "head";
  #line: Buffer[] = [];
  #lineBytes = 0;
  #headLines: string[] = [];
  /** Body bytes still expected in the current chunk / Content-Length body. */
  #remaining = 0;
  readonly #events: ParserEvents;
  readonly #headRequest: boolean;

  constructor(events: ParserEvents, method = "GET") {
    this.#events = events;
    this.#headRequest = method === "HEAD";
  }

  /** True once the body is complete. */
  get complete(): boolean {
    return this.#phase === "done";
  }

  /** True while the status line and headers are still being read. */
  get inHead(): boolean {
    return this.#phase === "head";
  }

  /** Stops parsing: later input is ignored and no more callbacks are made. */
  abort(): void {
    this.#phase = "done";
  }

  /** Parses `data` (not retained). */
  feed(data: Buffer): void {
    let pos = 0;
    const len = data.length;
    while (pos < len) {
      switch (this.#phase) {
        case "head":
        case "chunk-size":
        case "chunk-crlf":
        case "trailers": {
          const nl = data.indexOf(LF, pos);
          const stop = nl === -1 ? len : nl + 1;
          this.#takeLine(data.subarray(pos, stop));
          pos = stop;
          if (nl !== -1) this.#lineDone();
          break;
        }
        case "length":
        case "chunk-data": {
          const n = Math.min(this.#remaining, len - pos);
          if (n > 0) this.#events.onBody(data.subarray(pos, pos + n));
          if ((this.#phase as Phase) === "done") return; // aborted from onBody
          pos += n;
          this.#remaining -= n;
          if (this.#remaining === 0) {
            if (this.#phase === "length") this.#finish();
            else this.#phase = "chunk-crlf";
          }
          break;
        }
        case "eof":
          this.#events.onBody(pos === 0 ? data : data.subarray(pos));
          pos = len;
          break;
        case "done":
          // Bytes after the body (we asked for Connection: close): ignored.
          return;
      }
    }
  }

  /** The connection ended. Completes a read-until-close body; throws if the body is incomplete. */
  end(): void {
    if (this.#phase === "done") return;
    if (this.#phase === "eof") {
      this.#finish();
      return;
    }
    throw new HttpParseError(
      this.#phase === "head"
        ? "the connection closed before the response headers"
        : "other side closed before the response body ended",
    );
  }

  #takeLine(piece: Buffer): void {
    this.#lineBytes += piece.length;
    if (this.#lineBytes > MAX_HEAD_BYTES) {
      throw new HttpParseError(`response header section larger than ${MAX_HEAD_BYTES} bytes`);
    }
    this.#line.push(Buffer.from(piece));
  }

  #lineDone(): void {
    const raw = this.#line.length === 1 ? (this.#line[0] as Buffer) : Buffer.concat(this.#line);
    this.#line = [];
    const end = raw.length >= 2 && raw[raw.length - 2] === CR ? raw.length - 2 : raw.length - 1;
    const line = raw.toString("latin1", 0, end);
    switch (this.#phase) {
      case "head":
        if (line === "") this.#headDone();
        else this.#headLines.push(line);
        return;
      case "chunk-size": {
        this.#lineBytes = 0;
        const m = /^([0-9A-Fa-f]{1,12})[\t ]*(?:;.*)?$/.exec(line);
        if (!m?.[1]) throw new HttpParseError(`invalid chunk size line "${line.slice(0, 40)}"`);
        const size = Number.parseInt(m[1], 16);
        if (size === 0) this.#phase = "trailers";
        else {
          this.#remaining = size;
          this.#phase = "chunk-data";
        }
        return;
      }
      case "chunk-crlf":
        this.#lineBytes = 0;
        if (line !== "") throw new HttpParseError("missing CRLF after a chunk");
        this.#phase = "chunk-size";
        return;
      case "trailers":
        // no reset: the whole trailer section shares one MAX_HEAD_BYTES budget (endless trailers)
        if (line === "") this.#finish();
        return;
      default:
        return;
    }
  }

  #headDone(): void {
    const [statusLine, ...fields] = this.#headLines;
    this.#headLines = [];
    const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(statusLine ?? "");
    if (!m?.[2])
      throw new HttpParseError(`invalid status line "${(statusLine ?? "").slice(0, 40)}"`);
    const statusCode = Number(m[2]);
    const headers: ParsedHeaders = {};
    for (const field of fields) {
      const colon = field.indexOf(":");
      const name = colon > 0 ? field.slice(0, colon) : "";
      const value = field.slice(colon + 1).trim();
      if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) {
        throw new HttpParseError(`invalid response header "${field.slice(0, 40)}"`);
      }
      const key = name.toLowerCase();
      const prev = headers[key];
      if (prev === undefined) headers[key] = value;
      else if (Array.isArray(prev)) prev.push(value);
      else headers[key] = [prev, value];
    }
    if (statusCode >= 100 && statusCode < 200) {
      // 1xx interim response (100 Continue, 103 Early Hints): the real one follows. Its bytes
      // stay counted, so endless interim responses hit MAX_HEAD_BYTES like endless headers.
      if (statusCode === 101) throw new HttpParseError("unexpected protocol switch (HTTP 101)");
      return;
    }
    this.#lineBytes = 0;
    this.#events.onHead({ statusCode, headers });
    if (this.#phase !== "head") return; // abort() was called from onHead
    if (this.#headRequest || statusCode === 204 || statusCode === 304) {
      this.#finish();
      return;
    }
    const te = headers["transfer-encoding"];
    if (te !== undefined) {
      const codings = (Array.isArray(te) ? te.join(",") : te).toLowerCase().split(",");
      if (codings[codings.length - 1]?.trim() !== "chunked") {
        // Not chunked last: the body runs to the end of the connection (RFC 9112 §6.3).
        this.#phase = "eof";
        return;
      }
      this.#phase = "chunk-size";
      return;
    }
    const cl = headers["content-length"];
    if (cl !== undefined) {
      const values = (Array.isArray(cl) ? cl.join(",") : cl).split(",").map((v) => v.trim());
      const first = values[0] ?? "";
      if (!/^\d{1,16}$/.test(first) || values.some((v) => v !== first)) {
        throw new HttpParseError(`invalid Content-Length "${values.join(",").slice(0, 40)}"`);
      }
      this.#remaining = Number(first);
      if (this.#remaining === 0) this.#finish();
      else this.#phase = "length";
      return;
    }
    this.#phase = "eof";
  }

  #finish(): void {
    this.#phase = "done";
    this.#events.onComplete();
  }
}
