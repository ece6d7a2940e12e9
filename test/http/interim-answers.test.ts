/**
 * The interim-answer filter on one connection (src/http/interim-answers.ts; RFC 9110 §15.2;
 * docs/testing.md "Interim answers"), fed as node:net feeds a socket: one `push` per read,
 * split at every byte. The request is announced on undici's `undici:client:sendHeaders`
 * diagnostics channel, as undici does before it writes a request head.
 */
import { channel } from "node:diagnostics_channel";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { skipInterimAnswers } from "../../src/http/interim-answers.js";

const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
const HINTS = "HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n";
const FINAL = "HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello world";

/** A socket stand-in: what reaches undici (the chunks its `push` gets), and its error. */
function connection() {
  const socket = new Readable({ read() {} });
  const passed: (Buffer | null)[] = [];
  socket.push = (chunk: Buffer | null) => {
    passed.push(chunk);
    return true;
  };
  let error: Error | undefined;
  socket.on("error", (err) => {
    error = err;
  });
  skipInterimAnswers(socket);
  return {
    socket,
    passed,
    /** Everything undici got, as text. */
    text: () => Buffer.concat(passed.filter((c): c is Buffer => c !== null)).toString("latin1"),
    error: () => error,
    /** undici is about to write a request head on this socket. */
    request: () => channel("undici:client:sendHeaders").publish({ socket }),
    /** One read of `data` (latin1). */
    read: (data: string | Buffer) =>
      socket.push(typeof data === "string" ? Buffer.from(data, "latin1") : data),
  };
}

describe("interim answers before a final answer are removed", () => {
  const answer = `${CONTINUE}${HINTS}${CONTINUE}${FINAL}`;

  it("split into two reads at every byte: undici gets exactly the final answer", () => {
    for (let at = 0; at <= answer.length; at++) {
      const c = connection();
      c.request();
      c.read(answer.slice(0, at));
      c.read(answer.slice(at));
      expect(c.text(), `split at ${at}`).toBe(FINAL);
    }
  });

  it("one byte per read: undici gets exactly the final answer", () => {
    const c = connection();
    c.request();
    for (const ch of answer) c.read(ch);
    expect(c.text()).toBe(FINAL);
  });

  it("every answer on a kept-alive connection, each announced by its request", () => {
    const c = connection();
    for (let i = 0; i < 3; i++) {
      c.request();
      c.read(`${CONTINUE}${FINAL}`);
    }
    expect(c.text()).toBe(FINAL.repeat(3));
  });

  it("8 interim answers (the cap) are removed; a 9th destroys the connection as bad framing", () => {
    const eight = connection();
    eight.request();
    eight.read(`${CONTINUE.repeat(4)}${HINTS.repeat(4)}${FINAL}`);
    expect(eight.text()).toBe(FINAL);
    expect(eight.socket.destroyed).toBe(false);

    const nine = connection();
    nine.request();
    nine.read(CONTINUE.repeat(9));
    expect(nine.text()).toBe("");
    expect(nine.socket.destroyed).toBe(true);
    expect(nine.socket.errored).toMatchObject({
      code: "HPE_SVC_DL_FRAMING",
      message: "more than 8 interim (1xx) answers",
    });
  });

  it("an interim head that breaks framing (obs-fold) destroys the connection as bad framing", () => {
    const c = connection();
    c.request();
    c.read(`HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n  ; rel=preload\r\n\r\n${FINAL}`);
    expect(c.text()).toBe("");
    expect(c.socket.errored).toMatchObject({ code: "HPE_SVC_DL_FRAMING", definite: true });
  });

  it("the cap counts per request: 8 before each of two answers", () => {
    const c = connection();
    for (let i = 0; i < 2; i++) {
      c.request();
      c.read(`${CONTINUE.repeat(8)}${FINAL}`);
    }
    expect(c.text()).toBe(FINAL.repeat(2));
    expect(c.socket.destroyed).toBe(false);
  });
});

describe("everything else reaches undici untouched", () => {
  it("body chunks after a final head are the very buffers read, even one that looks like a 100", () => {
    const c = connection();
    c.request();
    const head = Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 52\r\n\r\n", "latin1");
    const body = [Buffer.from(CONTINUE, "latin1"), Buffer.from(CONTINUE, "latin1")];
    c.read(head);
    for (const chunk of body) c.read(chunk);
    expect(c.passed).toEqual([head, ...body]);
    expect(c.passed[1]).toBe(body[0]);
    expect(c.passed[2]).toBe(body[1]);
  });

  it("bytes no request asked for (nothing announced) pass as they are", () => {
    const c = connection();
    c.read(CONTINUE);
    expect(c.text()).toBe(CONTINUE);
  });

  it("a 101 Switching Protocols is passed on for undici to judge", () => {
    const c = connection();
    c.request();
    const upgrade = "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n";
    c.read(`${CONTINUE}${upgrade}${FINAL}`);
    expect(c.text()).toBe(`${upgrade}${FINAL}`);
  });

  it("an interim head the fast path's parser refuses (a header line with a bare LF) is passed on", () => {
    const c = connection();
    c.request();
    const odd = "HTTP/1.1 100 Continue\nx: y\r\n\r\n";
    c.read(`${odd}${FINAL}`);
    expect(c.text()).toBe(`${odd}${FINAL}`);
  });

  it("an interim head with bare LF line ends, read byte by byte, is passed on as its LF arrives", () => {
    const c = connection();
    c.request();
    const bare = "HTTP/1.1 100 Continue\n";
    for (const ch of bare) c.read(ch);
    expect(c.text()).toBe(bare);
  });

  it("an interim head larger than 16 KiB is passed on (undici's own head limit applies)", () => {
    const c = connection();
    c.request();
    const big = `HTTP/1.1 103 Early Hints\r\nx-pad: ${"p".repeat(16 * 1024)}`;
    c.read(big);
    expect(c.text()).toBe(big);
  });

  it("the end of the stream in the middle of an interim head: undici gets those bytes, then the end", () => {
    const c = connection();
    c.request();
    c.read("HTTP/1.1 100 Cont");
    expect(c.passed).toEqual([]);
    c.socket.push(null);
    expect(c.passed).toEqual([Buffer.from("HTTP/1.1 100 Cont", "latin1"), null]);
  });

  it("a final answer that does not start like an interim one is passed at once, not held", () => {
    const c = connection();
    c.request();
    c.read("HTTP/1.1 2");
    expect(c.text()).toBe("HTTP/1.1 2");
  });
});
