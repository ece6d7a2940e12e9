import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/** An env for runCli/spawnCli without any proxy variable of the machine. */
export const NO_PROXY_ENV = {
  HTTPS_PROXY: undefined,
  HTTP_PROXY: undefined,
  https_proxy: undefined,
  http_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};

/** A forward proxy on 127.0.0.1 that records what it is asked and what passes through it. */
export interface ForwardProxy {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** `host:port` of every CONNECT tunnel asked for, in order. */
  readonly connects: string[];
  /** Absolute-form URLs of plain (untunnelled) requests, in order. */
  readonly plain: string[];
  /** `Proxy-Authorization` values received. */
  readonly authorizations: string[];
  /** Every byte the client sent into tunnels and plain requests (to look for secrets). */
  seen(): Buffer;
  close(): Promise<void>;
}

/**
 * Starts a small forward proxy (node:http): `CONNECT host:port` opens a TCP tunnel (answered
 * `200 Connection Established`), absolute-form requests are forwarded. Everything the client
 * sends is recorded, so a test can check that https traffic stays opaque (no key in clear) and
 * which origins went through the proxy. A tunnel to a host that does not resolve or answer gets
 * `502 Bad Gateway`; with `requireAuth`, a CONNECT without that exact `Proxy-Authorization`
 * value gets `407 Proxy Authentication Required`; with `closeOnConnect`, every CONNECT is
 * answered by closing the connection (as some proxies do for a host they cannot resolve).
 */
export async function startForwardProxy(
  opts: { requireAuth?: string; closeOnConnect?: boolean } = {},
): Promise<ForwardProxy> {
  const connects: string[] = [];
  const plain: string[] = [];
  const authorizations: string[] = [];
  const seen: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    plain.push(req.url ?? "");
    const auth = req.headers["proxy-authorization"];
    if (typeof auth === "string") authorizations.push(auth);
    seen.push(Buffer.from(`${req.method} ${req.url}\r\n${JSON.stringify(req.headers)}\r\n`));
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.on("data", (c: Buffer) => seen.push(Buffer.from(c)));
    req.pipe(upstream);
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    connects.push(req.url ?? "");
    const auth = req.headers["proxy-authorization"];
    if (typeof auth === "string") authorizations.push(auth);
    if (opts.closeOnConnect === true) {
      client.destroy();
      return;
    }
    if (opts.requireAuth !== undefined && auth !== opts.requireAuth) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const [host, port] = (req.url ?? "").split(/:(?=\d+$)/);
    let established = false;
    const upstream = connect({ host: host?.replace(/^\[|\]$/g, ""), port: Number(port) }, () => {
      established = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) {
        seen.push(Buffer.from(head));
        upstream.write(head);
      }
      client.on("data", (c: Buffer) => seen.push(Buffer.from(c)));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    // As real proxies do: a host that does not resolve or answer gets a 502 to the CONNECT.
    upstream.on("error", () =>
      established
        ? client.destroy()
        : client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"),
    );
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    plain,
    authorizations,
    seen: () => Buffer.concat(seen),
    close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
