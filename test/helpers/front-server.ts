import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** Answers a request itself (returns true) or lets it through to the service (false). */
export type FrontOverride = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Options of {@link startFrontServer}. */
export interface FrontOptions {
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Rewrites the Location header of answers passed through. */
  rewriteLocation?: (location: string) => string;
}

/** A reverse proxy on 127.0.0.1 in front of the mock service. */
export interface FrontServer {
  /** `http://127.0.0.1:PORT`: use as SVC_BASE_URL. */
  readonly url: string;
  /** Paths (with query) requested through it, in order. */
  readonly paths: string[];
  /** Request headers received, in order. */
  readonly headersSeen: Record<string, string | string[] | undefined>[];
  /** TLS handshakes completed (https only). */
  tlsHandshakes(): number;
  close(): Promise<void>;
}

/**
 * Starts a reverse proxy (node:http) that forwards every request to `target` (the mock
 * service) unless `override` answers it: for hostile answers on one route (bad framing on one
 * pack's download) while the rest of the service stays real. `rewriteJson` may change a JSON
 * body passed through (e.g. a pack record's `downloads` URL).
 */
export async function startFrontServer(
  target: string,
  override: FrontOverride,
  rewriteJson?: (path: string, body: unknown) => unknown,
  opts: FrontOptions = {},
): Promise<FrontServer> {
  const paths: string[] = [];
  const headersSeen: Record<string, string | string[] | undefined>[] = [];
  const base = new URL(target);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    headersSeen.push({ ...req.headers });
    paths.push(req.url ?? "");
    if (override(req, res)) return;
    const upstream = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (answer) => {
        // a body cut short upstream (dropped, or closed before its Content-Length) is cut here too
        answer.on("close", () => {
          if (!answer.complete) res.destroy();
        });
        const location = answer.headers.location;
        if (location && opts.rewriteLocation)
          answer.headers.location = opts.rewriteLocation(location);
        const type = String(answer.headers["content-type"] ?? "");
        if (!rewriteJson || !type.includes("json")) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const json = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
          const out = Buffer.from(JSON.stringify(rewriteJson(req.url ?? "", json)));
          const headers = { ...answer.headers, "content-length": String(out.length) };
          delete headers["transfer-encoding"];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(out);
        });
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server: Server = opts.tls ? createHttpsServer(opts.tls, handler) : createServer(handler);
  let handshakes = 0;
  server.on("secureConnection", () => {
    handshakes += 1;
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    paths,
    headersSeen,
    tlsHandshakes: () => handshakes,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The mock service behind two https fronts with `tls` (a private CA): `api` (use its `url` as
 * SVC_BASE_URL; the CDN URLs in its JSON answers and redirects point to `cdn`) and `cdn`. The
 * caller closes both.
 */
export async function startTlsFronts(
  mock: { baseUrl: string; cdnUrl: string },
  tls: { key: string; cert: string },
): Promise<{ api: FrontServer; cdn: FrontServer }> {
  const cdn = await startFrontServer(mock.cdnUrl, () => false, undefined, { tls });
  let apiUrl = "";
  const api = await startFrontServer(
    mock.baseUrl,
    () => false,
    (_path, body) => JSON.parse(JSON.stringify(body).split(mock.baseUrl).join(apiUrl)) as unknown,
    { tls, rewriteLocation: (loc) => loc.split(mock.cdnUrl).join(cdn.url) },
  );
  apiUrl = api.url;
  return { api, cdn };
}
