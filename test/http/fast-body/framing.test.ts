import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  type FastHead,
  MAX_HEAD_BYTES,
  parseHead,
  ResponseFramer,
} from "../../../src/http/fast-body/framing.js";
import { MAX_INTERIM_ANSWERS } from "../../../src/http/framing-rules.js";
import { prng } from "../../helpers/prng.js";

/**
 * The differential guard of the body fast path: thousands of generated and mutated answers,
 * each split at every byte boundary, go to the fast path's framing and to llhttp (Node's
 * build of the parser undici uses, strict mode). The test fails when the fast path accepts
 * anything llhttp refuses, or frames a body (status, headers, body bytes, where the message
 * ends) differently. The seeds follow the shapes of llhttp's own response tests
 * (Content-Length, Transfer-Encoding, invalid answers, interim 1xx answers before the final one).
 */

const require = createRequire(import.meta.url);
interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error | undefined;
  [key: number]: unknown;
}
const { HTTPParser } = require("node:_http_common") as {
  HTTPParser: {
    new (): LlhttpParser;
    RESPONSE: number;
    kOnHeaders: number;
    kOnHeadersComplete: number;
    kOnBody: number;
    kOnMessageComplete: number;
  };
};

interface Framed {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/**
 * llhttp's reading of `parts` (one answer, fed part by part, after any interim 1xx answers):
 * the final answer's framing, or its error.
 */
function llhttp(parts: Buffer[]): Framed | { error: string } | "incomplete" {
  const p = new HTTPParser();
  p.initialize(HTTPParser.RESPONSE, {}, MAX_HEAD_BYTES, 0);
  const messages: { raw: string[]; status: number; body: Buffer[]; complete: boolean }[] = [];
  let raw: string[] = [];
  p[HTTPParser.kOnHeaders] = (h: string[]) => {
    raw = raw.concat(h);
  };
  p[HTTPParser.kOnHeadersComplete] = (
    _maj: number,
    _min: number,
    h: string[] | undefined,
    _m: unknown,
    _u: unknown,
    code: number,
  ) => {
    messages.push({ raw: h ? raw.concat(h) : raw, status: code, body: [], complete: false });
    raw = [];
    return 0;
  };
  p[HTTPParser.kOnBody] = (b: Buffer) => {
    messages.at(-1)?.body.push(Buffer.from(b));
  };
  p[HTTPParser.kOnMessageComplete] = () => {
    const last = messages.at(-1);
    if (last) last.complete = true;
  };
  for (const part of parts) {
    const r = p.execute(part);
    if (r instanceof Error) return { error: (r as Error & { code?: string }).code ?? r.message };
  }
  const final = messages.findIndex((m) => m.status >= 200);
  const last = messages[final];
  if (!last?.complete || final !== messages.length - 1) return "incomplete";
  if (messages.slice(0, final).some((m) => m.status === 101 || !m.complete)) return "incomplete";
  const headers: [string, string][] = [];
  for (let i = 0; i < last.raw.length; i += 2) {
    headers.push([(last.raw[i] ?? "").toLowerCase(), (last.raw[i + 1] ?? "").trim()]);
  }
  return { status: last.status, headers, body: Buffer.concat(last.body) };
}

/** The fast path's reading of the same parts: accepted framing, refused, or not complete. */
function fast(
  parts: Buffer[],
): { framed: Framed; head: FastHead; interimBytes: number } | "reject" | "more" {
  const framer = new ResponseFramer();
  const body: Buffer[] = [];
  for (const part of parts) {
    if (framer.done) break;
    const r = framer.feed(part);
    if (r === "more") continue;
    if ("reject" in r || "violation" in r) return "reject";
    body.push(part.subarray(r.start, r.end));
  }
  const head = framer.head;
  if (!head || !framer.done) return "more";
  const headers: [string, string][] = [];
  for (const [name, v] of Object.entries(head.headers)) {
    for (const value of Array.isArray(v) ? v : [v ?? ""]) headers.push([name, value]);
  }
  return {
    framed: { status: head.status, headers, body: Buffer.concat(body) },
    head,
    interimBytes: framer.interimBytes,
  };
}

/** Header pairs in llhttp's order grouped as the fast path groups them (by name, first seen). */
function grouped(pairs: [string, string][]): [string, string][] {
  const names = [...new Set(pairs.map(([n]) => n))];
  return names.flatMap((n) => pairs.filter(([m]) => m === n));
}

// --- the generator -----------------------------------------------------------------------

const STATUS_LINES = [
  "HTTP/1.1 200 OK",
  "HTTP/1.1 206 Partial Content",
  "HTTP/1.1 200 ",
  "HTTP/1.1 200 Okay\tthen",
  "HTTP/1.1 304 Not Modified",
  "HTTP/1.1 416 Range Not Satisfiable",
  "HTTP/1.1 403 Forbidden",
  "HTTP/1.1 503 Service Unavailable",
  "HTTP/1.1 200",
  "HTTP/1.0 200 OK",
  "HTTP/2.0 200 OK",
  "HTTP/1.1  200 OK",
  "HTTP/1.1 2000 OK",
  "HTTP/1.1 20 OK",
  "http/1.1 200 OK",
  " HTTP/1.1 200 OK",
  "HTTP/1.1 100 Continue",
  "HTTP/1.1 101 Switching Protocols",
  "HTTP/1.1 204 No Content",
  "HTTP/1.1 302 Found",
  "HTTP/1.1 099 Low",
  "HTTP/1.1 600 High",
  "HTTP/1.1 200 OK\u0000",
  "HTTP/1.1 200 \u0080K",
  "HTTP/01.1 200 OK",
  "HTTP/1.1 +200 OK",
];

/** Header lines in the shapes of llhttp's tests; `{n}` becomes the body length. */
const LENGTH_LINES = [
  "Content-Length: {n}",
  "Content-Length:{n}",
  "Content-Length:\t{n}\t",
  "content-length: {n}",
  "CONTENT-LENGTH: {n}",
  "Content-Length: 0{n}",
  "Content-Length: +{n}",
  "Content-Length: -{n}",
  "Content-Length: {n} {n}",
  "Content-Length: {n},{n}",
  "Content-Length: {n}, {n}",
  "Content-Length: 0x{n}",
  "Content-Length: {n}a",
  "Content-Length: 99999999999999999999",
  "Content-Length : {n}",
  " Content-Length: {n}",
  "Content-Length\t: {n}",
  "Content-Length-X: {n}",
  "Content-Lengthx: {n}",
  "Content-Length: ",
  "Content-Length: {n}\u0000",
];
const OTHER_LINES = [
  "Server: nginx",
  "Content-Type: application/zip",
  'ETag: "abc-123"',
  "Accept-Ranges: bytes",
  "Content-Range: bytes 0-4/5",
  "X-Empty:",
  "X-Empty: ",
  "X-Tabs:\tvalue\t",
  "Connection: close",
  "Connection: keep-alive",
  "Connection: Upgrade",
  "Upgrade: websocket",
  "Proxy-Connection: close",
  "Transfer-Encoding: chunked",
  "Transfer-Encoding: identity",
  "Transfer-Encoding: chunked, identity",
  "Transfer-Encoding: gzip, chunked",
  "Transfer-Encoding : chunked",
  "transfer-encoding: chunked",
  "X-Fold: a\r\n b",
  "X-Fold:\r\n\tfolded",
  "X-Obs: caf\u00e9",
  "X-Nul: a\u0000b",
  "X Space: y",
  "X@At: y",
  ": no-name",
  "X-Colon::double",
  'X-Quote: "q"',
  "Set-Cookie: a=1",
  "Set-Cookie: b=2",
  "X-Long: {long}",
];

/** Interim answers that may come before the final one (RFC 9110 §15.2), and broken ones. */
const INTERIM_HEADS = [
  "HTTP/1.1 100 Continue\r\n\r\n",
  "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n",
  "HTTP/1.1 102 Processing\r\n\r\n",
  "HTTP/1.1 199 Whatever\r\nX-A: b\r\n\r\n",
  "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
  "HTTP/1.1 100 Continue\r\nContent-Length: 3\r\n\r\n",
  "HTTP/1.1 103 Early Hints\r\nTransfer-Encoding: chunked\r\n\r\n",
  "HTTP/1.1 100\r\n\r\n",
  "HTTP/1.0 100 Continue\r\n\r\n",
  "HTTP/1.1 103 Early Hints\r\nLink: a\r\n b\r\n\r\n",
];

/** Zero to eleven interim answers (most often none, sometimes past the cap). */
function interimPrefix(rnd: () => number): string {
  if (rnd() < 0.8) return "";
  const count = rnd() < 0.9 ? 1 + Math.floor(rnd() * 3) : 8 + Math.floor(rnd() * 4);
  let out = "";
  for (let k = 0; k < count; k++) {
    out += INTERIM_HEADS[rnd() < 0.7 ? Math.floor(rnd() * 4) : Math.floor(rnd() * 10)] ?? "";
  }
  return out;
}

function generate(count: number, seed: number): Buffer[] {
  const rnd = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const n = Math.floor(rnd() * 12);
    const status = rnd() < 0.75 ? pick(STATUS_LINES.slice(0, 8)) : pick(STATUS_LINES);
    const lines: string[] = [];
    const others = Math.floor(rnd() * 5);
    for (let k = 0; k < others; k++)
      lines.push(pick(rnd() < 0.7 ? OTHER_LINES.slice(0, 12) : OTHER_LINES));
    const lengths = rnd() < 0.85 ? 1 : Math.floor(rnd() * 3);
    for (let k = 0; k < lengths; k++) {
      const line = rnd() < 0.7 ? (LENGTH_LINES[0] ?? "") : pick(LENGTH_LINES);
      lines.splice(Math.floor(rnd() * (lines.length + 1)), 0, line);
    }
    const long = "v".repeat(rnd() < 0.05 ? MAX_HEAD_BYTES : Math.floor(rnd() * 40));
    const eol = rnd() < 0.9 ? "\r\n" : pick(["\n", "\r", "\r\r\n", "\n\r"]);
    const head = [status, ...lines].join(eol).replaceAll("{n}", String(n)).replace("{long}", long);
    const extra = rnd() < 0.8 ? 0 : Math.floor(rnd() * 6) - 2;
    const body = "b".repeat(Math.max(0, n + extra)) + (rnd() < 0.1 ? "HTTP/1.1 200 OK\r\n" : "");
    const before = interimPrefix(rnd);
    let bytes: Buffer = Buffer.from(`${before}${head}${eol}${eol}${body}`, "latin1");
    if (rnd() < 0.35) bytes = mutate(bytes, rnd);
    out.push(bytes);
  }
  return out;
}

const MUTANTS = [0x0d, 0x0a, 0x20, 0x09, 0x3a, 0x00, 0x80, 0xff, 0x61, 0x30, 0x2c, 0x2d, 0x7f];

/** One to three random byte edits: replace, delete or insert. */
function mutate(bytes: Buffer, rnd: () => number): Buffer {
  let b = bytes;
  const edits = 1 + Math.floor(rnd() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rnd() * b.length);
    const byte = MUTANTS[Math.floor(rnd() * MUTANTS.length)] ?? 0;
    const kind = rnd();
    if (kind < 0.4) {
      b = Buffer.from(b);
      b[at] = byte;
    } else if (kind < 0.7) b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
    else b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at)]);
  }
  return b;
}

/** Every split of `bytes` in two (and the whole), plus a byte-by-byte feed for short ones. */
function splits(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let k = 0; k <= bytes.length; k++) out.push([bytes.subarray(0, k), bytes.subarray(k)]);
  if (bytes.length < 256) out.push([...bytes].map((x) => Buffer.from([x])));
  return out;
}

describe("body fast path: differential test against llhttp", () => {
  // ~1 M parses: no time is asserted, but a loaded machine needs more than the default limit
  it("accepts nothing llhttp refuses and frames every accepted answer as llhttp does", {
    timeout: 300_000,
  }, () => {
    const cases = generate(2000, 0x5eed);
    let accepted = 0;
    let refused = 0;
    let afterInterim = 0;
    for (const bytes of cases) {
      const verdicts = new Set<string>();
      for (const parts of splits(bytes)) {
        const f = fast(parts);
        if (f === "reject" || f === "more") {
          verdicts.add(f);
          continue;
        }
        verdicts.add("accept");
        if (parts[0]?.length === 0 && f.interimBytes > 0) afterInterim += 1;
        // llhttp gets exactly the bytes of the framed message, split the same way
        const total = f.interimBytes + f.head.headBytes + f.head.contentLength;
        const whole = Buffer.concat(parts).subarray(0, total);
        const k = Math.min(parts[0]?.length ?? 0, total);
        const l = llhttp([whole.subarray(0, k), whole.subarray(k)]);
        const shown = JSON.stringify(bytes.toString("latin1"));
        if (typeof l === "string" || "error" in l) {
          expect.fail(`fast path accepted what llhttp refuses (${JSON.stringify(l)}): ${shown}`);
        }
        expect(f.framed.status, shown).toBe(l.status);
        expect(f.framed.headers, shown).toEqual(grouped(l.headers));
        expect(f.framed.body.equals(l.body), shown).toBe(true);
      }
      // the verdict never depends on where the reads are cut
      expect([...verdicts], JSON.stringify(bytes.toString("latin1"))).toHaveLength(1);
      if (verdicts.has("accept")) accepted += 1;
      else refused += 1;
    }
    // neither side is vacuous
    expect(accepted).toBeGreaterThan(400);
    expect(refused).toBeGreaterThan(400);
    expect(afterInterim).toBeGreaterThan(50);
  });

  it("leaves to undici the answers it does not take, and fails at once what breaks framing", () => {
    const toUndici = [
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\n\r\nclose-delimited",
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
      "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
      `HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX: ${"a".repeat(MAX_HEAD_BYTES)}\r\n\r\nx`,
    ];
    for (const text of toUndici) {
      expect(parseHead(Buffer.from(text, "latin1")).kind, text).toBe("reject");
    }
    const violations = [
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: identity\r\n\r\nx",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
      "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX: a\r\n b\r\n\r\nx",
      "HTTP/1.1 200 OK\r\nX:\r\n\tfolded\r\nContent-Length: 1\r\n\r\nx",
    ];
    for (const text of violations) {
      const bytes = Buffer.from(text, "latin1");
      expect(parseHead(bytes).kind, text).toBe("violation");
      expect(new ResponseFramer().feed(bytes), text).toHaveProperty("violation");
      // llhttp refuses each of them too: not a case undici would take
      expect(llhttp([bytes]), text).toHaveProperty("error");
    }
  });

  it("skips interim answers (100 Continue, 103 Early Hints) up to the cap, split anywhere", () => {
    const interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n";
    const text = `${interim}HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc`;
    for (const parts of splits(Buffer.from(text, "latin1"))) {
      const f = fast(parts);
      if (typeof f === "string") expect.fail(`${f} at ${parts[0]?.length}`);
      expect(f.framed.status).toBe(200);
      expect(f.framed.body.toString()).toBe("abc");
      expect(f.interimBytes).toBe(interim.length);
    }
    const many = (n: number): Buffer =>
      Buffer.from(
        `${"HTTP/1.1 103 Early Hints\r\n\r\n".repeat(n)}HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n`,
      );
    const atCap = many(MAX_INTERIM_ANSWERS);
    expect(new ResponseFramer().feed(atCap)).toEqual({ start: atCap.length, end: atCap.length });
    expect(new ResponseFramer().feed(many(MAX_INTERIM_ANSWERS + 1))).toEqual({
      violation: `more than ${MAX_INTERIM_ANSWERS} interim (1xx) answers`,
    });
  });

  it("frames a plain answer without copying the body and notices bytes past it", () => {
    const framer = new ResponseFramer();
    expect(framer.feed(Buffer.from("HTTP/1.1 200 OK\r\nContent-Le"))).toBe("more");
    const read = Buffer.from("ngth: 4\r\nConnection: close\r\n\r\nabcdEXTRA");
    expect(framer.feed(read)).toEqual({ start: 30, end: 34 });
    expect(read.subarray(30, 34).toString()).toBe("abcd");
    expect(framer.done).toBe(true);
    expect(framer.extra).toBe(true);
    expect(framer.head?.keepAlive).toBe(false);
  });
});
