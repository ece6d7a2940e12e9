import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { prng } from "./prng.js";

/** One request a {@link RawServer} received. */
export interface RawRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** Header names lower-case; values as received (repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** Every raw header line `Name: value`, in order. */
  rawHeaders: string[];
  /** Request body as UTF-8 text ("" when none). */
  body: string;
}

/** Handles one request; `hit` counts requests to the same path (1 for the first). */
export type RawHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  info: { body: string; hit: number; server: RawServer },
) => void | Promise<void>;

/** A tiny HTTP server on 127.0.0.1 that records everything it receives. */
export interface RawServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  readonly requests: RawRequest[];
  /** Replaces the handler. */
  handle(handler: RawHandler): void;
  close(): Promise<void>;
}

/**
 * Starts a plain `node:http` server on a free 127.0.0.1 port for the hostile-server and
 * missing-header tests: a handler decides every answer (headers the mock cannot omit, raw bytes
 * on the socket, redirects to other origins), and every request is recorded with its headers
 * and body. The default handler answers 404.
 */
export async function startRawServer(handler?: RawHandler): Promise<RawServer> {
  let current: RawHandler =
    handler ??
    ((_req, res) => {
      res.writeHead(404).end();
    });
  const requests: RawRequest[] = [];
  const hits = new Map<string, number>();
  let self: RawServer | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      }
      const rawHeaders: string[] = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        rawHeaders.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers, rawHeaders, body });
      const path = (req.url ?? "").split("?")[0] ?? "";
      const hit = (hits.get(path) ?? 0) + 1;
      hits.set(path, hit);
      if (!self) return;
      Promise.resolve(current(req, res, { body, hit, server: self })).catch(() => {
        res.destroy();
      });
    });
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  self = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handle(h) {
      current = h;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return self;
}

/**
 * A valid GLB (binary glTF 2.0) of exactly `size` bytes (a multiple of 4, ≥ 56): the `glTF`
 * magic, version 2, the declared length, a 28-byte JSON chunk, then a BIN chunk of seeded
 * pseudo-random bytes (cli-contract "Integrity": the structure svc-dl checks). `declaredLength`
 * overrides the length in the header (to make a file that lies about its size).
 */
export function makeGlb(size: number, seed = 1, declaredLength = size): Buffer {
  if (size % 4 !== 0 || size < 56) throw new Error(`makeGlb: ${size} is not a GLB size`);
  const buf = Buffer.alloc(size);
  const rand = prng(seed);
  for (let i = 56; i < size; i++) buf[i] = Math.floor(rand() * 256);
  buf.write("glTF", 0, "latin1");
  buf.writeUInt32LE(2, 4);
  buf.writeUInt32LE(declaredLength, 8);
  buf.writeUInt32LE(28, 12);
  buf.write("JSON", 16, "latin1");
  buf.write('{"asset":{"version":"2.0"}} ', 20, "latin1");
  buf.writeUInt32LE(size - 56, 48);
  buf.write("BIN\0", 52, "latin1");
  return buf;
}

/** How {@link serveFile} answers. */
export interface ServeOptions {
  /** ETag header; null sends none. Default a strong ETag derived from the size. */
  etag?: string | null;
  /** Content-Disposition header; null sends none. Default `attachment; filename="<name>"`. */
  contentDisposition?: string | null;
  /** false: no Content-Length (chunked body). Default true. */
  contentLength?: boolean;
  /** Honour `Range: bytes=N-` (with `If-Range` against the ETag). Default true. */
  ranges?: boolean;
  /** Send only this many body bytes, then destroy the socket (a dropped connection). */
  dropAfter?: number;
  /** Send only this many body bytes, then end the response and close the connection cleanly. */
  endAfter?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/**
 * Answers a file download: 200 with the whole file, or 206 for `Range: bytes=N-` when ranges
 * are on and `If-Range` (if sent) equals the ETag; 416 `bytes *\/SIZE` when N ≥ size. Headers
 * follow `opts` so tests can leave out any of ETag, Content-Disposition and Content-Length.
 */
export function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: Buffer,
  name: string,
  opts: ServeOptions = {},
): void {
  const etag = opts.etag === undefined ? `"f-${file.length}"` : opts.etag;
  const headers: Record<string, string> = {
    "content-type": "model/gltf-binary",
    ...opts.headers,
  };
  if (etag !== null) headers.etag = etag;
  const cd =
    opts.contentDisposition === undefined
      ? `attachment; filename="${name}"`
      : opts.contentDisposition;
  if (cd !== null) headers["content-disposition"] = cd;
  let start = 0;
  let status = 200;
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  const ifRange = req.headers["if-range"];
  if ((opts.ranges ?? true) && range && (ifRange === undefined || ifRange === etag)) {
    start = Number(range[1]);
    if (start >= file.length) {
      res.writeHead(416, { "content-range": `bytes */${file.length}`, "content-length": "0" });
      res.end();
      return;
    }
    status = 206;
    headers["content-range"] = `bytes ${start}-${file.length - 1}/${file.length}`;
  }
  const body = file.subarray(start);
  if (opts.contentLength ?? true) headers["content-length"] = String(body.length);
  if (opts.endAfter !== undefined) headers.connection = "close";
  res.writeHead(status, headers);
  if (opts.dropAfter !== undefined) {
    res.write(body.subarray(0, opts.dropAfter), () => {
      setTimeout(() => res.destroy(), 20);
    });
    return;
  }
  if (opts.endAfter !== undefined) {
    res.end(body.subarray(0, opts.endAfter));
    return;
  }
  res.end(body);
}

/**
 * Writes `data` straight to the request's socket (no HTTP framing by node:http: whatever
 * status line, headers and body the test wants), then closes the connection.
 */
export function rawReply(req: IncomingMessage, data: string | Buffer): void {
  const socket = req.socket;
  socket.write(data, () => {
    socket.end();
    setTimeout(() => socket.destroy(), 50);
  });
}

/** The spec's JSON error body with status `status`. */
export function sendApiError(res: ServerResponse, status: number, code: string): void {
  const body = JSON.stringify({ error: { code, message: code, request_id: "req_raw_0001" } });
  res.writeHead(status, {
    "content-type": "application/json",
    "x-request-id": "req_raw_0001",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}
