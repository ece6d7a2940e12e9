import { describe, expect, it } from "vitest";
import {
  HttpParseError,
  type ResponseHead,
  ResponseParser,
} from "../../../src/download/http1-parser.js";

/** Feeds `raw` to a parser in pieces of `step` bytes, copying each piece into one reused buffer. */
function parse(raw: string, step: number, end = true, method = "GET") {
  let head: ResponseHead | undefined;
  const body: Buffer[] = [];
  let complete = false;
  const parser = new ResponseParser(
    {
      onHead: (h) => {
        head = h;
      },
      onBody: (v) => body.push(Buffer.from(v)),
      onComplete: () => {
        complete = true;
      },
    },
    method,
  );
  const bytes = Buffer.from(raw, "latin1");
  const reused = Buffer.alloc(step);
  for (let i = 0; i < bytes.length; i += step) {
    const n = bytes.copy(reused, 0, i, i + step);
    parser.feed(reused.subarray(0, n));
    reused.fill(0x58); // the parser must not keep views of a reused buffer
  }
  if (end) parser.end();
  return { head, body: Buffer.concat(body).toString("latin1"), complete };
}

const STEPS = [1, 2, 3, 7, 64, 4096];

describe("ResponseParser", () => {
  it.each(STEPS)("parses a Content-Length body fed %i bytes at a time", (step) => {
    const r = parse('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: "a"\r\n\r\nhello', step, false);
    expect(r.head?.statusCode).toBe(200);
    expect(r.head?.headers).toEqual({ "content-length": "5", etag: '"a"' });
    expect(r.body).toBe("hello");
    expect(r.complete).toBe(true);
  });

  it.each(STEPS)(
    "decodes a chunked body with extensions and trailers, fed %i bytes at a time",
    (step) => {
      const raw =
        "HTTP/1.1 206 Partial Content\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n";
      const r = parse(raw, step, false);
      expect(r.head?.statusCode).toBe(206);
      expect(r.body).toBe("hello 0123456789");
      expect(r.complete).toBe(true);
    },
  );

  it("skips 1xx interim responses and joins repeated headers into arrays", () => {
    const raw =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 2\r\n\r\nok";
    const r = parse(raw, 5);
    expect(r.head?.statusCode).toBe(200);
    expect(r.head?.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(r.body).toBe("ok");
  });

  it("reads a body without framing to the end of the connection", () => {
    const r = parse("HTTP/1.0 200 OK\r\n\r\nuntil close", 4);
    expect(r.body).toBe("until close");
    expect(r.complete).toBe(true);
  });

  it("has no body for 204, 304 and HEAD", () => {
    expect(
      parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 8, false).complete,
    ).toBe(true);
    expect(parse("HTTP/1.1 204 No Content\r\n\r\n", 8, false).complete).toBe(true);
    const head = parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 8, false, "HEAD");
    expect(head.complete).toBe(true);
    expect(head.body).toBe("");
  });

  it("ignores bytes after a complete body", () => {
    const r = parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 100, false);
    expect(r.body).toBe("ok");
  });

  it("fails on a body cut short, for Content-Length and chunked", () => {
    expect(() => parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 3)).toThrow(
      HttpParseError,
    );
    expect(() => parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 3)).toThrow(
      /other side closed/,
    );
    expect(() => parse("HTTP/1.1 200 OK\r\nContent-", 3)).toThrow(/before the response headers/);
  });

  it("rejects malformed responses", () => {
    expect(() => parse("HTTP/2 200\r\n\r\n", 50)).toThrow(/status line/);
    expect(() => parse("HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n", 50)).toThrow(/header/);
    expect(() => parse("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", 50)).toThrow(
      /Content-Length/,
    );
    expect(() => parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 50)).toThrow(
      /chunk size/,
    );
    const huge = `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`;
    expect(() => parse(huge, 1000)).toThrow(/larger than/);
  });
});
