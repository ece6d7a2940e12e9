import { connect, createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";

/** What an {@link InterimRelay} saw. */
export interface InterimRelay {
  /** `http://127.0.0.1:PORT`, or `https://` with `tls`. */
  readonly url: string;
  /** Client connections accepted. */
  connections(): number;
  /** Request heads received over all connections. */
  requests(): number;
  close(): Promise<void>;
}

/** What the relay writes to the client before forwarding request `n` (1-based, whole run). */
export type InterimBytes = (n: number) => (string | Buffer)[];

/**
 * A raw TCP (or TLS, with `tls`) relay in front of a plain-http `target`: for every request head
 * a client sends (GET requests, no bodies), it first writes `interim(n)` to the client, chunk by
 * chunk, each waiting for the previous write to be handed to the kernel, then forwards the
 * request; the target's answer is passed back byte for byte. One upstream connection per client
 * connection, so keep-alive reuse is visible in {@link InterimRelay.connections}.
 */
export async function startInterimRelay(
  target: string,
  interim: InterimBytes,
  tls?: { key: string; cert: string },
): Promise<InterimRelay> {
  const upstreamUrl = new URL(target);
  const sockets = new Set<Socket>();
  let connections = 0;
  let requests = 0;
  const onClient = (client: Socket): void => {
    connections += 1;
    sockets.add(client);
    const upstream = connect({ host: upstreamUrl.hostname, port: Number(upstreamUrl.port) });
    sockets.add(upstream);
    upstream.on("data", (d: Buffer) => client.write(d));
    upstream.on("close", () => client.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.on("error", () => upstream.destroy());
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();
    client.on("data", (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
        const head = pending.subarray(0, end + 4);
        pending = pending.subarray(end + 4);
        requests += 1;
        const chunks = interim(requests);
        queue = queue.then(async () => {
          for (const chunk of chunks) {
            await new Promise<void>((resolve) => client.write(chunk, () => resolve()));
          }
          upstream.write(head);
        });
      }
    });
  };
  const server: Server = tls
    ? createTlsServer({ key: tls.key, cert: tls.cert }, onClient)
    : createNetServer(onClient);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => requests,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `n` copies of `text` as separate chunks. */
export function times(n: number, text: string): string[] {
  return Array.from({ length: n }, () => text);
}

/** `text` as one chunk per byte (each its own write, so the client reads it in pieces). */
export function byteByByte(text: string): Buffer[] {
  return [...Buffer.from(text, "latin1")].map((b) => Buffer.from([b]));
}
