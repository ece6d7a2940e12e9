import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { envelope, MeSchema } from "../../src/api/schemas.js";
import { InterruptedError } from "../../src/errors/interrupted-error.js";
import { HttpClient } from "../../src/http/client.js";

/**
 * Proxies that misbehave on CONNECT (cli-contract "Networks": a server, or a proxy, that never
 * answers cannot hold a run for more than a few minutes; Ctrl-C ends a run at once). The
 * client talks to them directly with a shortened silence limit.
 */

const KEY = `svc_live_${"P".repeat(32)}_00000000`;
let server: Server | undefined;
const sockets = new Set<Socket>();
let connects = 0;

afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  connects = 0;
});

/** A proxy that accepts every CONNECT and never answers it. */
async function silentProxy(): Promise<string> {
  server = createServer();
  server.on("connect", (_req, socket: Socket) => {
    connects += 1;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function clientVia(proxy: string, signal?: AbortSignal): HttpClient {
  return new HttpClient({
    baseUrl: new URL("https://assets.example.invalid"),
    apiKey: () => KEY,
    userAgent: "svc-dl/test",
    network: { env: {}, proxy, idleTimeoutMs: 300 },
    retry: { maxTries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ...(signal ? { signal } : {}),
  });
}

describe("a proxy that never answers CONNECT", () => {
  it("is silence like any other: a timeout after the silence limit, retried, then exit 7", async () => {
    const client = clientVia(await silentProxy());
    const started = Date.now();
    const err = await client
      .getJson(client.apiUrl("me"), envelope(MeSchema))
      .catch((e: unknown) => e);
    await client.close();
    expect(err).toMatchObject({ code: "timeout", exitCode: 7 });
    expect(connects).toBe(2);
    // two tries of 300 ms (undici's own default for the proxy's pool was 300 s)
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("Ctrl-C while the CONNECT is pending ends the request and closes at once", async () => {
    const controller = new AbortController();
    const client = new HttpClient({
      baseUrl: new URL("https://assets.example.invalid"),
      apiKey: () => KEY,
      userAgent: "svc-dl/test",
      network: { env: {}, proxy: await silentProxy() },
      signal: controller.signal,
    });
    const pending = client
      .getJson(client.apiUrl("me"), envelope(MeSchema))
      .catch((e: unknown) => e);
    await new Promise<void>((resolve) => server?.once("connect", () => resolve()));
    const started = Date.now();
    controller.abort(new InterruptedError("SIGINT"));
    expect(await pending).toBeInstanceOf(InterruptedError);
    await client.close();
    // not the 30 s silence limit, nor the 2 s grace of a normal close
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
