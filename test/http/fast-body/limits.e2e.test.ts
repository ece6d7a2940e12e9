/**
 * The body fast path keeps undici's limits (cli-contract "Networks: proxies, certificates,
 * timeouts"; docs/testing.md), over real loopback: a raw TCP server plays the CDN on its
 * own origin (so downloads from it go through src/http/fast-body/), a raw HTTP server plays
 * the service and redirects there. Limits are injected small (`idleTimeoutMs`); nothing sleeps:
 * each case waits for the download's outcome.
 */
import { existsSync, readdirSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../../src/errors/network-error.js";
import { HttpClient } from "../../../src/http/client.js";
import type { RetrySettings } from "../../../src/http/retry.js";
import { downloadAssetWith } from "../../helpers/download.js";
import { makeGlb, type RawServer, startRawServer } from "../../helpers/raw-server.js";

const SLUG = "limits-asset";
const FILE = makeGlb(64 * 1024, 5);

const closers: { close(): unknown }[] = [];
afterAll(async () => {
  for (const c of closers) await c.close();
});

/** What the raw CDN saw of one connection. */
interface CdnConnection {
  requests: number;
  /** Bytes the answer wrote (as the answer counts them). */
  written: number;
  /** The connection ended (the client closed it, or it broke). */
  closed: boolean;
}

/**
 * A raw TCP "CDN": every request on a connection is answered by `answer(socket, n)` (n: the
 * request's number over the whole server, from 1), which writes whatever bytes it likes.
 */
async function rawCdn(
  answer: (socket: Socket, n: number, conn: CdnConnection) => void,
): Promise<{ url: string; connections: CdnConnection[]; requests: () => number }> {
  const connections: CdnConnection[] = [];
  let requests = 0;
  const server: Server = createServer((socket) => {
    const conn: CdnConnection = { requests: 0, written: 0, closed: false };
    connections.push(conn);
    let pending = "";
    socket.on("data", (d) => {
      pending += d.toString("latin1");
      while (pending.includes("\r\n\r\n")) {
        pending = pending.slice(pending.indexOf("\r\n\r\n") + 4);
        requests += 1;
        conn.requests += 1;
        answer(socket, requests, conn);
      }
    });
    for (const event of ["end", "close"]) {
      socket.on(event, () => {
        conn.closed = true;
      });
    }
    socket.on("error", () => undefined);
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push({
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, connections, requests: () => requests };
}

/** A raw service whose download routes redirect to `cdn`, answering `before` ahead of the 302. */
async function service(cdn: string, before = ""): Promise<RawServer> {
  const s = await startRawServer((req, res) => {
    const slug = /^\/api\/v1\/assets\/([^/]+)\/download$/.exec(req.url ?? "")?.[1];
    if (!slug) {
      res.writeHead(404).end();
      return;
    }
    const redirect = `HTTP/1.1 302 Found\r\nlocation: ${cdn}/files/${slug}.glb\r\ncontent-length: 0\r\n\r\n`;
    req.socket.end(`${before}${redirect}`);
  });
  closers.push(s);
  return s;
}

/** A client for one run against `base` (tiny backoff, `idleTimeoutMs` injected). */
function client(base: string, idleTimeoutMs: number, retry: Partial<RetrySettings> = {}) {
  return new HttpClient({
    baseUrl: new URL(base),
    apiKey: () => "svc_live_LimitsTestKey0123456789abcdefghij_0a0b0c0d",
    userAgent: "svc-dl/test",
    network: { env: {}, idleTimeoutMs },
    retry: { maxTries: 2, baseDelayMs: 1, maxDelayMs: 2, ...retry },
    onNotice: (line) => notices.push(line),
  });
}
const notices: string[] = [];

/** Downloads asset `slug` with `http` into a fresh directory: the outcome (or error). */
async function downloadWith(http: HttpClient, slug = SLUG) {
  return downloadAssetWith(http, slug);
}

/** Downloads the asset in a run of its own (2 tries). */
async function download(base: string, idleTimeoutMs = 10_000) {
  const http = client(base, idleTimeoutMs);
  try {
    return await downloadWith(http);
  } finally {
    await http.close().catch(() => undefined);
  }
}

/** Entries of `dir` other than `.svc-dl/`. */
function finalFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f !== ".svc-dl") : [];
}

const HEAD = `HTTP/1.1 200 OK\r\ncontent-type: model/gltf-binary\r\netag: "l1"\r\ncontent-length: ${FILE.length}\r\n`;
const whole = (head: string): Buffer => Buffer.concat([Buffer.from(`${head}\r\n`), FILE]);

describe("the fast path's response-head time limit", () => {
  it("a CDN that sends its head one byte at a time is cut at the limit, not when the head ends", async () => {
    const head = Buffer.from(`${HEAD}x-pad: ${"p".repeat(200)}\r\n\r\n`);
    const cdn = await rawCdn((socket, _n, conn) => {
      let i = 0;
      const timer = setInterval(() => {
        if (conn.closed || socket.destroyed) {
          clearInterval(timer);
          return;
        }
        if (i < head.length) {
          socket.write(head.subarray(i, i + 1));
          i += 1;
          conn.written = i;
          return;
        }
        clearInterval(timer);
        socket.write(FILE);
      }, 10);
    });
    const api = await service(cdn.url);
    const { outcome, dir } = await download(api.url, 400);
    expect(outcome).toBeInstanceOf(NetworkError);
    expect(outcome).toMatchObject({ code: "timeout", exitCode: 7 });
    // every attempt ended while the head was still arriving (a byte every 10 ms kept the
    // connection from ever being silent for 400 ms)
    expect(cdn.connections.length).toBe(2);
    for (const c of cdn.connections) {
      expect(c.written).toBeLessThan(head.length);
    }
    expect(finalFiles(dir)).toEqual([]);
  });

  it("a head, then silence: the body's silence limit ends the attempt", async () => {
    const cdn = await rawCdn((socket) => socket.write(`${HEAD}\r\n`));
    const api = await service(cdn.url);
    const { outcome } = await download(api.url, 300);
    expect(outcome).toMatchObject({ code: "timeout", exitCode: 7 });
    expect(cdn.requests()).toBe(2);
  });
});

describe("interim (1xx) answers are skipped", () => {
  it("100 Continue and 103 Early Hints before the CDN's answer: downloaded, one request", async () => {
    const interim =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x.css>; rel=preload\r\n\r\n";
    const cdn = await rawCdn((socket) => {
      socket.write(interim);
      socket.write(whole(HEAD));
    });
    const api = await service(cdn.url);
    const { outcome, dir } = await download(api.url);
    expect(outcome).toMatchObject({ status: "downloaded" });
    expect(finalFiles(dir)).toEqual(["limits-asset.glb"]);
    expect(cdn.requests()).toBe(1);
  });

  it("103 Early Hints before the service's answer (undici): skipped", async () => {
    const cdn = await rawCdn((socket) => socket.write(whole(HEAD)));
    const api = await service(cdn.url, "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n");
    const { outcome, dir } = await download(api.url);
    expect(outcome).toMatchObject({ status: "downloaded" });
    expect(finalFiles(dir)).toEqual(["limits-asset.glb"]);
  });

  it("100 Continue before the service's answer (undici): skipped, one request", async () => {
    const cdn = await rawCdn((socket) => socket.write(whole(HEAD)));
    const api = await service(cdn.url, "HTTP/1.1 100 Continue\r\n\r\n");
    const { outcome, dir } = await download(api.url);
    expect(outcome).toMatchObject({ status: "downloaded" });
    expect(finalFiles(dir)).toEqual(["limits-asset.glb"]);
    expect(api.requests).toHaveLength(1);
  });

  it("more interim answers than the cap: bad_framing at once, one request", async () => {
    const cdn = await rawCdn((socket) => {
      socket.write("HTTP/1.1 103 Early Hints\r\n\r\n".repeat(9));
      socket.write(whole(HEAD));
    });
    const api = await service(cdn.url);
    const { outcome, dir } = await download(api.url);
    expect(outcome).toMatchObject({ code: "bad_framing", exitCode: 7 });
    expect((outcome as Error).message).toContain("more than 8 interim (1xx) answers");
    expect(cdn.requests()).toBe(1);
    expect(finalFiles(dir)).toEqual([]);
  });

  it("more interim answers than the cap from the service (undici): bad_framing", async () => {
    const cdn = await rawCdn((socket) => socket.write(whole(HEAD)));
    const api = await service(cdn.url, "HTTP/1.1 103 Early Hints\r\n\r\n".repeat(9));
    const { outcome } = await download(api.url);
    expect(outcome).toMatchObject({ code: "bad_framing", exitCode: 7 });
  });
});

describe("a framing violation from the CDN fails at once (RFC 9112 §5.2, §6.3)", () => {
  it.each([
    [
      "Transfer-Encoding with Content-Length",
      "transfer-encoding: chunked\r\n",
      "Transfer-Encoding together with Content-Length",
    ],
    [
      "two different Content-Length values",
      `content-length: ${FILE.length - 1}\r\n`,
      "Content-Length given more than once",
    ],
    ["a folded header line (obs-fold)", "x-folded: a\r\n b\r\n", "obs-fold"],
  ])(
    "%s → exit 7 bad_framing after one request, not handed to undici",
    async (_name, extra, said) => {
      const cdn = await rawCdn((socket) => socket.write(whole(`${HEAD}${extra}`)));
      const api = await service(cdn.url);
      const { outcome, dir } = await download(api.url);
      expect(outcome).toBeInstanceOf(NetworkError);
      expect(outcome).toMatchObject({ code: "bad_framing", exitCode: 7 });
      expect((outcome as Error).message).toContain(said);
      expect(cdn.requests()).toBe(1);
      expect(finalFiles(dir)).toEqual([]);
    },
  );
});

describe("a stalled CDN is not waited on for every later item (docs/testing.md)", () => {
  it("after two downloads gave up on its silence, later ones fail at once without a request", async () => {
    const cdn = await rawCdn((socket) => socket.write(`${HEAD}\r\n`)); // a head, then silence
    const api = await service(cdn.url);
    notices.length = 0;
    const http = client(api.url, 500, { maxTries: 5, maxSilentAttempts: 2 });
    const outcomes: unknown[] = [];
    let afterTwo = 0;
    try {
      for (const slug of ["s1", "s2", "s3", "s4"]) {
        outcomes.push((await downloadWith(http, slug)).outcome);
        if (slug === "s2") afterTwo = cdn.requests();
      }
    } finally {
      await http.close();
    }
    for (const o of outcomes) expect(o).toMatchObject({ code: "timeout", exitCode: 7 });
    const messages = outcomes.map((o) => (o as Error).message);
    expect(messages[0]).toContain("gave up after 2 attempts that went silent");
    expect(messages[1]).toContain("gave up after 2 attempts that went silent");
    for (const m of messages.slice(2)) {
      expect(m).toContain("went silent in 2 earlier downloads of this run");
    }
    // the first two items asked the CDN (2 silent attempts each; on a loaded machine an
    // attempt may end before its request reached the server), the later ones not at all
    expect(afterTwo).toBeGreaterThanOrEqual(2);
    expect(cdn.requests()).toBe(afterTwo);
    expect(notices.filter((n) => n.includes("later downloads from it fail at once"))).toHaveLength(
      1,
    );
  });

  it("silence recovered by a retry is not a stall: later items still go to the CDN", async () => {
    const cdn = await rawCdn((socket, n) => {
      // every other request goes silent after its head; the retry gets the whole file
      socket.write(n % 2 === 1 ? `${HEAD}\r\n` : whole(HEAD));
    });
    const api = await service(cdn.url);
    const http = client(api.url, 200, { maxTries: 5, maxSilentAttempts: 2 });
    try {
      for (const slug of ["r1", "r2", "r3"]) {
        expect((await downloadWith(http, slug)).outcome).toMatchObject({ status: "downloaded" });
      }
    } finally {
      await http.close();
    }
    expect(cdn.requests()).toBe(6);
  });
});
