/**
 * TLS fronts for `npm run bench` (test/bench/run.js): the mock service speaks plain http only,
 * so the https measurements put these in front of it, on 127.0.0.1, with a throw-away private
 * CA made by the machine's openssl.
 *
 * - {@link startTlsPipe}: a TLS terminator for the CDN. It decrypts and pipes the bytes to the
 *   mock's CDN port unchanged (no HTTP parsing, no per-request work), so what curl and svc-dl
 *   download over https costs the bench process one TLS layer, the same for both tools.
 * - {@link startHttpsApiFront}: an https reverse proxy (node:http) for the API that rewrites the
 *   mock's own http URLs (JSON bodies, `Location`) to the https fronts, so the pack records'
 *   `downloads.*` URLs and the CDN redirect obey the scheme rules of an https service. API
 *   answers are small; their cost does not matter to the measurement.
 *
 * Both count completed TLS handshakes (`secureConnection` events). Plain ESM, Node built-ins.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect } from "node:net";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";

/**
 * Makes a self-signed certificate for `IP:127.0.0.1` and `DNS:localhost` in `dir` (valid two
 * days). Returns `{ key, cert, caFile }` (PEM text; caFile is the path for `--cacert` and
 * `--ca-file`), or null when openssl is missing or fails.
 */
export function makeCert(dir) {
  const keyFile = join(dir, "bench-key.pem");
  const caFile = join(dir, "bench-ca.pem");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=svc-dl bench",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ],
    { stdio: "ignore" },
  );
  if (made.status !== 0) return null;
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(caFile, "utf8"), caFile };
}

function listenLocal(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server.address().port);
    });
  });
}

function closer(server, sockets) {
  return () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

/**
 * Starts a TLS terminator on 127.0.0.1 piping every connection to `targetUrl`'s host and port.
 * Resolves `{ url: "https://127.0.0.1:PORT", handshakes(): number, close(): Promise }`.
 */
export async function startTlsPipe(targetUrl, { key, cert }) {
  const target = new URL(targetUrl);
  const sockets = new Set();
  let handshakes = 0;
  const server = createTlsServer({ key, cert }, (front) => {
    handshakes += 1;
    const back = connect(Number(target.port), target.hostname);
    sockets.add(front);
    sockets.add(back);
    const kill = () => {
      front.destroy();
      back.destroy();
      sockets.delete(front);
      sockets.delete(back);
    };
    for (const s of [front, back]) {
      s.on("error", kill);
      s.on("close", kill);
    }
    front.pipe(back);
    back.pipe(front);
  });
  server.on("tlsClientError", () => {});
  const port = await listenLocal(server);
  return {
    url: `https://127.0.0.1:${port}`,
    handshakes: () => handshakes,
    close: closer(server, sockets),
  };
}

/**
 * Starts an https reverse proxy on 127.0.0.1 in front of the mock's API (`mock.baseUrl`).
 * Every `mock.baseUrl` in a JSON body or `Location` becomes this front's URL and every
 * `mock.cdnUrl` becomes `cdnFrontUrl`. Resolves like {@link startTlsPipe}. With `tls` null
 * the front speaks http (to send the mock's redirects to another CDN, such as nginx).
 */
export async function startHttpsApiFront(mock, cdnFrontUrl, tls) {
  const base = new URL(mock.baseUrl);
  const sockets = new Set();
  let handshakes = 0;
  let self = "";
  const rewrite = (text) =>
    text.split(mock.baseUrl).join(self).split(mock.cdnUrl).join(cdnFrontUrl);
  const handler = (req, res) => {
    const upstream = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (answer) => {
        const headers = { ...answer.headers };
        if (typeof headers.location === "string") headers.location = rewrite(headers.location);
        const chunks = [];
        answer.on("data", (c) => chunks.push(c));
        answer.on("error", () => res.destroy());
        answer.on("end", () => {
          let body = Buffer.concat(chunks);
          if (String(headers["content-type"] ?? "").includes("json")) {
            body = Buffer.from(rewrite(body.toString("utf8")));
          }
          delete headers["transfer-encoding"];
          if (req.method !== "HEAD") headers["content-length"] = String(body.length);
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(req.method === "HEAD" ? undefined : body);
        });
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  server.on(tls ? "secureConnection" : "connection", (s) => {
    if (tls) handshakes += 1;
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => {});
  const port = await listenLocal(server);
  self = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
  return { url: self, handshakes: () => handshakes, close: closer(server, sockets) };
}
