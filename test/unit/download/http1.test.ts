import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DirectBody, directRequest } from "../../../src/download/http1.js";

let server: Server;
let base: string;
const big = Buffer.alloc(3 * 1024 * 1024 + 17);
for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    if (req.url === "/chunked") {
      res.writeHead(200, { "x-test": "1" }); // no Content-Length: chunked
      let i = 0;
      const step = 100_000;
      const next = (): void => {
        if (i >= big.length) {
          res.end();
          return;
        }
        const piece = big.subarray(i, i + step);
        i += step;
        if (res.write(piece)) setImmediate(next);
        else res.once("drain", next);
      };
      next();
    } else if (req.url === "/length") {
      res.writeHead(200, { "content-length": String(big.length) });
      res.end(big);
    } else if (req.url === "/cut") {
      res.writeHead(200, { "content-length": "1000" });
      res.write(Buffer.alloc(10));
      setTimeout(() => res.socket?.destroy(), 20);
    } else if (req.url === "/echo") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, body, range: req.headers.range ?? null }));
      });
    } else if (req.url === "/stall") {
      res.writeHead(200, { "content-length": "100" });
      res.write("x");
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function sinkAll(body: DirectBody): Promise<Buffer> {
  const parts: Buffer[] = [];
  return new Promise((resolve, reject) => {
    body.once("end", () => resolve(Buffer.concat(parts)));
    body.once("error", reject);
    body.setSink((view) => parts.push(Buffer.from(view)));
  });
}

describe("directRequest", () => {
  it("streams a chunked body and a Content-Length body to a sink intact", async () => {
    for (const path of ["/chunked", "/length"]) {
      const res = await directRequest(new URL(path, base), { method: "GET", headers: {} });
      expect(res.statusCode).toBe(200);
      expect((await sinkAll(res.body)).equals(big)).toBe(true);
    }
  });

  it("reads as a Readable of copies, sends headers and a POST body", async () => {
    const res = await directRequest(new URL("/echo", base), {
      method: "POST",
      headers: { range: "bytes=5-", "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers["content-type"]).toBe("application/json");
    let text = "";
    for await (const chunk of res.body) text += String(chunk);
    expect(JSON.parse(text)).toEqual({ method: "POST", body: '{"a":1}', range: "bytes=5-" });
  });

  it("fails the body when the connection closes early", async () => {
    const res = await directRequest(new URL("/cut", base), { method: "GET", headers: {} });
    await expect(sinkAll(res.body)).rejects.toThrow(/other side closed/);
  });

  it("ends a stalled body with the abort signal's reason", async () => {
    const ac = new AbortController();
    const res = await directRequest(new URL("/stall", base), {
      method: "GET",
      headers: {},
      signal: ac.signal,
    });
    const done = sinkAll(res.body);
    setTimeout(() => ac.abort(new Error("stop")), 20);
    await expect(done).rejects.toThrow("stop");
  });

  it("rejects a refused connection with its code, and invalid headers", async () => {
    const port = (server.address() as AddressInfo).port;
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const deadPort = (closed.address() as AddressInfo).port;
    closed.close();
    await expect(
      directRequest(new URL(`http://127.0.0.1:${deadPort}/`), { method: "GET", headers: {} }),
    ).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await expect(
      directRequest(new URL(`http://127.0.0.1:${port}/`), {
        method: "GET",
        headers: { "if-range": '"a"\r\nx: y' },
      }),
    ).rejects.toThrow(TypeError);
  });
});
