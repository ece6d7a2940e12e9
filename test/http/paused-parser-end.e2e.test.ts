/**
 * A body paused by backpressure when the server closes the connection (src/http/
 * paused-parser-end.ts): undici 7's HTTP/1.1 parser asserted that it was not paused when the
 * peer's FIN came after a `Connection: close` answer, an uncatchable AssertionError that ended
 * the process (nodejs/undici#5360). A raw TCP server on loopback writes the answer and FINs at
 * once; the reader's sink holds the first chunk (as `--limit-rate` or a slow `-o -` reader do)
 * until the client socket has seen the FIN, so undici's parser is paused when it ends.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchRequest } from "../../src/http/dispatch-request.js";
import { createDispatcher } from "../../src/http/dispatcher.js";

const PAYLOAD = Buffer.alloc(16 * 1024, 0x61);
for (let i = 0; i < PAYLOAD.length; i += 97) PAYLOAD[i] = i & 0xff;

/** The head the server writes at once for the next request (its body and FIN come on cue). */
let answerHead = "";
/** The connection of the request being answered, its head written. */
let answering: ((socket: Socket) => void) | undefined;
let server: Server;
let origin = "";
beforeAll(async () => {
  server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", () => {
      socket.write(answerHead, "latin1");
      answering?.(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  origin = `http://127.0.0.1:${address.port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Resolves with the next connection undici sets up (`undici:client:connected`). */
function nextConnection(): Promise<Socket> {
  return new Promise((resolve) => {
    const onConnected = (message: unknown): void => {
      unsubscribe("undici:client:connected", onConnected);
      resolve((message as { socket: Socket }).socket);
    };
    subscribe("undici:client:connected", onConnected);
  });
}

/** Resolves once `socket` has seen the end of the stream or closed. */
function endOf(socket: Socket): Promise<void> {
  if (socket.readableEnded || socket.closed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once("end", () => resolve());
    socket.once("close", () => resolve());
  });
}

/**
 * Fetches `head` + `body` through the run's dispatcher. The body and the server's FIN are sent
 * only once the reader is attached, in one write, so they arrive in one read; the reader's sink
 * holds that first chunk (the transfer is paused) until the client socket has seen the FIN.
 * Resolves with the bytes the sink took, or the transfer's error.
 */
async function pausedAtFin(head: string, body: Buffer): Promise<Buffer | Error> {
  answerHead = head;
  const { dispatcher } = createDispatcher({ env: {} });
  const connection = nextConnection();
  const serverSide = new Promise<Socket>((resolve) => {
    answering = resolve;
  });
  try {
    const res = await dispatchRequest(dispatcher, {
      url: new URL(`${origin}/pack.zip`),
      method: "GET",
      headers: {},
    });
    const socket = await connection;
    const chunks: Buffer[] = [];
    let held = false;
    const consumed = res.body.consume((chunk) => {
      chunks.push(Buffer.from(chunk));
      if (held) return undefined;
      held = true;
      return endOf(socket).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    });
    (await serverSide).end(body);
    await consumed;
    return Buffer.concat(chunks);
  } catch (err) {
    return err as Error;
  } finally {
    await dispatcher.destroy();
  }
}

describe("a paused body at the server's FIN (Connection: close)", () => {
  it("a Content-Length body completes with every byte", async () => {
    const got = await pausedAtFin(
      `HTTP/1.1 200 OK\r\nContent-Length: ${PAYLOAD.length}\r\nConnection: close\r\n\r\n`,
      PAYLOAD,
    );
    expect(got).toBeInstanceOf(Buffer);
    expect((got as Buffer).equals(PAYLOAD)).toBe(true);
  });

  it("a body that ends at the close (no length) completes with every byte", async () => {
    const got = await pausedAtFin("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", PAYLOAD);
    expect(got).toBeInstanceOf(Buffer);
    expect((got as Buffer).equals(PAYLOAD)).toBe(true);
  });

  it("a body shorter than its Content-Length fails the transfer, never a clean end", async () => {
    const got = await pausedAtFin(
      `HTTP/1.1 200 OK\r\nContent-Length: ${PAYLOAD.length * 2}\r\nConnection: close\r\n\r\n`,
      PAYLOAD,
    );
    expect(got).toBeInstanceOf(Error);
  });
});
