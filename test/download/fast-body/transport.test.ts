import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createFastBodyTransport } from "../../../src/download/fast-body/transport.js";

/** A raw TCP server answering every request on a connection with `answer()` in one write. */
async function rawServer(answer: () => Buffer): Promise<{
  url: URL;
  server: Server;
  connections: () => number;
  requests: () => number;
}> {
  let connections = 0;
  let requests = 0;
  const server = createServer((socket: Socket) => {
    connections += 1;
    let pending = "";
    socket.on("data", (d) => {
      pending += d.toString("latin1");
      while (pending.includes("\r\n\r\n")) {
        pending = pending.slice(pending.indexOf("\r\n\r\n") + 4);
        requests += 1;
        socket.write(answer());
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/file`),
    server,
    connections: () => connections,
    requests: () => requests,
  };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

const settings = { secureContext: () => undefined, lookup: undefined, idleMs: 10_000 };
const BODY = Buffer.alloc(200 * 1024, 0x61);

/** Lets the event loop turn until the socket has delivered what it will. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("body fast path: transport", () => {
  it("reuses a connection after a body that arrived whole before anyone read it", async () => {
    const srv = await rawServer(() =>
      Buffer.concat([
        Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\n\r\n`),
        BODY,
      ]),
    );
    servers.push(srv.server);
    const transport = createFastBodyTransport(settings);
    try {
      for (let round = 0; round < 3; round++) {
        const res = await transport.request({ url: srv.url, method: "GET", headers: {} });
        expect(res?.statusCode).toBe(200);
        await turns(20); // the whole answer is in: more than the 64 KiB held before a reader
        let got = 0;
        await res?.body.consume((chunk) => {
          got += chunk.length;
          return undefined;
        });
        expect(got).toBe(BODY.length);
      }
      expect(srv.requests()).toBe(3);
      expect(srv.connections()).toBe(1);
    } finally {
      transport.close();
    }
  });

  it("refuses a chunked answer and leaves that origin to undici afterwards", async () => {
    const srv = await rawServer(() =>
      Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"),
    );
    servers.push(srv.server);
    const transport = createFastBodyTransport(settings);
    try {
      const init = { url: srv.url, method: "GET" as const, headers: {} };
      expect(await transport.request(init)).toBeUndefined();
      expect(await transport.request(init)).toBeUndefined();
      expect(srv.requests()).toBe(1);
      // never a request it cannot write as it is
      const other = new URL(srv.url);
      other.pathname = "/other";
      expect(
        await transport.request({ ...init, url: other, headers: { "x-bad": "a\r\nb" } }),
      ).toBeUndefined();
    } finally {
      transport.close();
    }
  });
});
