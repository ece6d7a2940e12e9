/**
 * a hostile server. File names from Content-Disposition that try to leave the
 * output directory or to be devices; redirects to other origins (which must never see the API
 * key or the license key, in any header, the URL or a body); https→http; huge and endless
 * response heads; bodies larger than declared. After every case the directory around the
 * output directory is listed: nothing was written outside it, ever.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { MockAgent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../src/errors/network-error.js";
import { HttpClient } from "../../src/http/client.js";
import { startMockService } from "../../src/mock-server/index.js";
import { registerSecret } from "../helpers/cli.js";
import {
  makeGlb,
  type RawHandler,
  type RawServer,
  rawReply,
  sendApiError,
  serveFile,
  startRawServer,
} from "../helpers/raw-server.js";
import { makeSelfSignedCert } from "../helpers/tls.js";
import {
  envFor,
  finalFiles,
  finalPathProblem,
  listTree,
  run,
  sha256,
  sha256Of,
  tempDir,
} from "./helpers/harness.js";

const KEY = "svc_live_H0stileServerTestKeyAbCdEf0123456_5eed5eed";
const KEY_BODY = KEY.slice("svc_live_".length, -9);
const LICENSE = "SVC_H0STILE-LICENSE-KEY-0123456789ABCDEF";
registerSecret(KEY);
registerSecret(LICENSE);

const SLUG = "hostile-asset";
const FILE = makeGlb(80 * 1024, 7);
const FILE_SHA = sha256(FILE);

const servers: RawServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function server(handler?: RawHandler): Promise<RawServer> {
  const s = await startRawServer(handler);
  servers.push(s);
  return s;
}

/** Throws unless nothing a server received carries the API key, any part of it, or the license key. */
function assertNeverSaw(s: RawServer, what: string): void {
  const seen = JSON.stringify(s.requests);
  for (const secret of [KEY, KEY_BODY, LICENSE, Buffer.from(KEY).toString("base64"), "svc_live_"]) {
    expect(seen, `${what} received a credential`).not.toContain(secret);
  }
}

/** A root with an empty `out/` in it; the CLI runs in `root` and writes to `out/`. */
function sandbox(): { root: string; out: string; before: string[] } {
  const root = tempDir("svc-dl-rel-hostile-");
  const out = join(root, "out");
  mkdirSync(out);
  return { root, out, before: listTree(root) };
}

/** Everything written under `root` is inside `out/`. */
function writtenOutside(root: string, before: string[]): string[] {
  return listTree(root).filter((p) => !before.includes(p) && !p.startsWith("out/"));
}

describe("hostile Content-Disposition names (mock CDN)", () => {
  const token = `esc-${process.pid}`;
  const cases: { header: string; expected: string }[] = [
    { header: `attachment; filename="../../../../tmp/${token}.zip"`, expected: `${token}.zip` },
    { header: `attachment; filename="/etc/cron.d/${token}"`, expected: token },
    {
      header: `attachment; filename="C:\\\\Windows\\\\System32\\\\${token}.zip"`,
      expected: `${token}.zip`,
    },
    {
      header: `attachment; filename*=UTF-8''%2E%2E%2F%2E%2E%2F${token}.zip`,
      expected: `${token}.zip`,
    },
    { header: "attachment; filename*=UTF-8''..%5C..%5Cwin.zip", expected: "win.zip" },
    { header: "attachment; filename*=UTF-8''a%00b%0D%0Ac%7F%1Bd%09e.zip", expected: "abcde.zip" },
    { header: "attachment; filename*=UTF-8''%E2%80%AEpiz.exe", expected: "piz.exe" },
    { header: 'attachment; filename="CON"', expected: "_CON" },
    { header: 'attachment; filename="NUL.txt"', expected: "_NUL.txt" },
    { header: 'attachment; filename="COM1"', expected: "_COM1" },
    { header: 'attachment; filename="lpt9.tar.gz"', expected: "_lpt9.tar.gz" },
    { header: 'attachment; filename=""', expected: "sci-fi-props.zip" },
    { header: "attachment; filename*=UTF-8''", expected: "sci-fi-props.zip" },
    { header: 'attachment; filename="   "', expected: "sci-fi-props.zip" },
    { header: 'attachment; filename="./"', expected: "sci-fi-props.zip" },
    { header: 'attachment; filename="..."', expected: "sci-fi-props.zip" },
    { header: 'attachment; filename="../.svc-dl/state.json"', expected: "state.json" },
    { header: 'attachment; filename=".svc-dl"', expected: "svc-dl" },
    {
      header: "inline; filename=unquoted name with spaces.zip",
      expected: "unquoted name with spaces.zip",
    },
  ];
  const long: { header: string; ext: string }[] = [
    {
      header: `attachment; filename*=UTF-8''${encodeURIComponent(`${"ü".repeat(200)}.zip`)}`,
      ext: ".zip",
    },
    {
      header: `attachment; filename*=UTF-8''${encodeURIComponent(`${"🌲".repeat(100)}.zip`)}`,
      ext: ".zip",
    },
    {
      header: `attachment; filename*=UTF-8''${encodeURIComponent(`${"日本語".repeat(40)}.tar.gz`)}`,
      ext: ".gz",
    },
    { header: `attachment; filename="${"a".repeat(320)}.${"x".repeat(30)}"`, ext: "" },
  ];

  async function download(header: string) {
    const mock = await startMockService({
      packSize: 64 * 1024,
      faults: { contentDisposition: header },
    });
    try {
      const info = await mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
      const box = sandbox();
      const r = await run(["pack", "get", "sci-fi-props", "-o", "out/", "--json"], {
        env: envFor(mock),
        cwd: box.root,
      });
      return { r, box, info };
    } finally {
      await mock.close();
    }
  }

  it.concurrent.for(cases)("$header → $expected", async ({ header, expected }, { expect }) => {
    const { r, box, info } = await download(header);
    expect(r.code, r.stderr).toBe(0);
    expect(finalFiles(box.out)).toEqual([expected]);
    expect(r.doc?.path).toBe(join(box.out, expected));
    expect(sha256Of(join(box.out, expected))).toBe(info.sha256);
    expect(writtenOutside(box.root, box.before)).toEqual([]);
    // the bookkeeping survived a name that aims at it
    expect(
      Object.keys(JSON.parse(readFileSync(join(box.out, ".svc-dl", "state.json"), "utf8")).items),
    ).toEqual([expected]);
    expect(finalPathProblem(box.out, [info.sha256])).toBeUndefined();
  });

  it.concurrent.for(long)(
    "300+ byte name ($ext) is shortened safely",
    async ({ header, ext }, { expect }) => {
      const { r, box, info } = await download(header);
      expect(r.code, r.stderr).toBe(0);
      const [name] = finalFiles(box.out);
      expect(name).toBeDefined();
      const n = name ?? "";
      expect(Buffer.byteLength(n)).toBeLessThanOrEqual(255);
      expect(Buffer.byteLength(n)).toBeGreaterThan(100);
      expect(n).not.toContain("\uFFFD"); // no character cut in half
      expect(Buffer.from(n, "utf8").toString("utf8")).toBe(n);
      if (ext) expect(n.endsWith(ext)).toBe(true);
      expect(sha256Of(join(box.out, n))).toBe(info.sha256);
      expect(writtenOutside(box.root, box.before)).toEqual([]);
    },
  );

  it("a name that is an existing directory in out/ → exit 8 file_exists, the directory untouched", async () => {
    const mock = await startMockService({
      packSize: 64 * 1024,
      faults: { contentDisposition: 'attachment; filename="models"' },
    });
    try {
      const box = sandbox();
      mkdirSync(join(box.out, "models"));
      writeFileSync(join(box.out, "models", "keep.txt"), "mine");
      const before = listTree(box.root);
      const r = await run(["pack", "get", "sci-fi-props", "-o", "out/", "--json"], {
        env: envFor(mock),
        cwd: box.root,
      });
      expect(r.code, r.stderr).toBe(8);
      expect(r.error?.code).toBe("file_exists");
      expect(readFileSync(join(box.out, "models", "keep.txt"), "utf8")).toBe("mine");
      expect(listTree(box.root).filter((p) => !p.startsWith("out/.svc-dl"))).toEqual(
        before.filter((p) => !p.startsWith("out/.svc-dl")),
      );
    } finally {
      await mock.close();
    }
  });
});

describe("cross-origin redirects never carry a credential", () => {
  /** An API origin whose asset route redirects (status `status`) to `target()`. */
  async function api(status: number, target: () => string): Promise<RawServer> {
    return server((req, res) => {
      if (req.url?.startsWith(`/api/v1/assets/${SLUG}/download`)) {
        res.writeHead(status, { location: target() }).end();
      } else sendApiError(res, 404, "not_found");
    });
  }

  async function cdn(): Promise<RawServer> {
    return server((req, res) => serveFile(req, res, FILE, "model.glb"));
  }

  async function get(base: string) {
    const box = sandbox();
    const r = await run(["asset", "get", SLUG, "-o", "out/", "--json"], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY },
      cwd: box.root,
    });
    expect(writtenOutside(box.root, box.before)).toEqual([]);
    return { r, box };
  }

  it.concurrent.for([301, 302, 303, 307, 308])(
    "%i to another origin: it gets no key in any header",
    async (status, { expect }) => {
      const c = await cdn();
      const a = await api(status, () => `${c.url}/files/model.glb?sig=s1`);
      const { r, box } = await get(a.url);
      expect(r.code, r.stderr).toBe(0);
      expect(sha256Of(join(box.out, "model.glb"))).toBe(FILE_SHA);
      // the service origin did get the key (so the scan below is not vacuous)
      expect(a.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(c.requests.length).toBeGreaterThan(0);
      assertNeverSaw(c, `the origin behind a ${status}`);
    },
  );

  it("a chain through two other origins, a protocol-relative Location, and localhost vs 127.0.0.1", async () => {
    const c = await cdn();
    const b = await server((_req, res) => {
      res.writeHead(302, { location: `//127.0.0.1:${c.port}/files/model.glb` }).end();
    });
    const a = await api(302, () => `${b.url}/hop`);
    const { r } = await get(a.url);
    expect(r.code, r.stderr).toBe(0);
    assertNeverSaw(b, "the first other origin");
    assertNeverSaw(c, "the second other origin");

    // same host and port, other origin name: http://localhost:PORT is not http://127.0.0.1:PORT
    const self = await server((req, res) => {
      if (req.headers.host?.startsWith("127.0.0.1")) {
        res.writeHead(302, { location: `http://localhost:${self.port}/files/model.glb` }).end();
      } else serveFile(req, res, FILE, "model.glb");
    });
    const second = await get(self.url);
    expect(second.r.code, second.r.stderr).toBe(0);
    const viaLocalhost = self.requests.filter((q) => q.headers.host?.startsWith("localhost"));
    expect(viaLocalhost.length).toBeGreaterThan(0);
    expect(JSON.stringify(viaLocalhost)).not.toContain(KEY_BODY);
  });

  it("an expired CDN link (403) sends the client back to the service, never the key to the CDN", async () => {
    let n = 0;
    const c = await server((req, res) => {
      n += 1;
      if (n <= 2) sendApiError(res, 403, "url_expired");
      else serveFile(req, res, FILE, "model.glb");
    });
    const a = await api(302, () => `${c.url}/files/model.glb?sig=${n}`);
    const { r } = await get(a.url);
    expect(r.code, r.stderr).toBe(0);
    expect(a.requests).toHaveLength(3);
    assertNeverSaw(c, "the CDN");
  });

  it("whoami and auth login follow a redirect of /v1/me without taking the key along", async () => {
    const me = {
      data: {
        account: { id: "usr_1", email: "a@example.com", name: "A" },
        entitlements: { lifetime: false, owned_product_slugs: [], pack_count: 0, asset_count: 0 },
        key: {
          id: "key_1",
          name: "ci",
          preview: "svc_live_H0s",
          scopes: ["catalog:read"],
          created_at: "2024-01-01T00:00:00.000Z",
          last_used_at: "2024-01-01T00:00:00.000Z",
        },
      },
    };
    const b = await server((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(me));
    });
    const a = await server((_req, res) => {
      res.writeHead(307, { location: `${b.url}/v1/me` }).end();
    });
    const dir = tempDir();
    const who = await run(["whoami", "--json"], {
      env: { SVC_BASE_URL: a.url, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(who.code, who.stderr).toBe(0);
    const login = await run(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.url },
      cwd: dir,
      input: `${KEY}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    // stored for the origin it was checked with, and only there
    const config = JSON.parse(readFileSync(join(login.configDir, "config.json"), "utf8")) as {
      keys: Record<string, string>;
    };
    expect(config.keys).toEqual({ [a.url]: KEY });
    assertNeverSaw(b, "the origin /v1/me redirected to");
  });

  it.concurrent.for([302, 303, 307, 308])(
    "legacy POST answered %i: the license key never reaches the target",
    async (status, { expect }) => {
      const c = await cdn();
      const a = await server((req, res) => {
        if (req.method === "POST" && req.url === "/api/download") {
          res.writeHead(status, { location: `${c.url}/files/model.glb` }).end();
        } else sendApiError(res, 404, "not_found");
      });
      const box = sandbox();
      const r = await run(["legacy", "get", "--asset", SLUG, "-o", "out/", "--json"], {
        env: { SVC_BASE_URL: a.url, SVC_LICENSE_KEY: LICENSE },
        cwd: box.root,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(a.requests[0]?.body ?? "{}").licenseKey).toBe(LICENSE);
      expect(c.requests[0]?.method).toBe("GET");
      expect(c.requests[0]?.body).toBe("");
      assertNeverSaw(c, "the legacy redirect target");
      expect(writtenOutside(box.root, box.before)).toEqual([]);
    },
  );
});

describe("https → http", () => {
  let cert: { key: string; cert: string; caFile: string } | undefined;
  const https: HttpsServer[] = [];
  beforeAll(() => {
    cert = makeSelfSignedCert(["IP:127.0.0.1"]);
  });
  afterAll(async () => {
    for (const s of https) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  async function httpsServer(
    tls: { key: string; cert: string },
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): Promise<string> {
    const s = createHttpsServer(tls, (req, res) => {
      req.resume();
      req.on("end", () => handler(req, res));
    });
    https.push(s);
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `https://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  it("a real TLS service redirecting to http:// is refused (exit 7 insecure_redirect); the http origin gets no request", async () => {
    const plain = await server((req, res) => serveFile(req, res, FILE, "model.glb"));
    if (!cert) {
      // no openssl here: the same rule at the HttpClient level (undici MockAgent)
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent
        .get("https://svc.example")
        .intercept({ path: `/api/v1/assets/${SLUG}/download` })
        .reply(302, "", { headers: { location: `${plain.url}/f.glb` } });
      const client = new HttpClient({
        baseUrl: new URL("https://svc.example"),
        apiKey: () => KEY,
        userAgent: "t",
        dispatcher: agent,
      });
      const err = await client
        .send({ url: client.apiUrl(`assets/${SLUG}/download`) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).code).toBe("insecure_redirect");
      expect(plain.requests).toEqual([]);
      return;
    }
    const tls = cert;
    const env = { NODE_EXTRA_CA_CERTS: tls.caFile, SVC_API_KEY: KEY };
    // control: the TLS setup works (API → https CDN, through the engine's own transport)
    const tlsCdn = await httpsServer(tls, (req, res) => serveFile(req, res, FILE, "model.glb"));
    const good = await httpsServer(tls, (_req, res) => {
      res.writeHead(302, { location: `${tlsCdn}/files/model.glb` }).end();
    });
    const ok = sandbox();
    const control = await run(["asset", "get", SLUG, "-o", "out/", "--json"], {
      env: { ...env, SVC_BASE_URL: good },
      cwd: ok.root,
    });
    expect(control.code, control.stderr).toBe(0);
    expect(sha256Of(join(ok.out, "model.glb"))).toBe(FILE_SHA);

    for (const first of ["api", "cdn"] as const) {
      // https API → http, and https API → https CDN → http
      const hopToHttp = await httpsServer(tls, (_req, res) => {
        res.writeHead(302, { location: `${plain.url}/files/model.glb` }).end();
      });
      const base =
        first === "api"
          ? hopToHttp
          : await httpsServer(tls, (_req, res) => {
              res.writeHead(302, { location: `${hopToHttp}/files/model.glb` }).end();
            });
      const box = sandbox();
      const r = await run(["asset", "get", SLUG, "-o", "out/", "--json"], {
        env: { ...env, SVC_BASE_URL: base },
        cwd: box.root,
      });
      expect(r.code, r.stderr).toBe(7);
      expect(r.error?.code).toBe("insecure_redirect");
      expect(finalFiles(box.out)).toEqual([]);
      expect(writtenOutside(box.root, box.before)).toEqual([]);
    }
    expect(plain.requests).toEqual([]);
  });
});

describe("huge or endless response heads, bodies larger than declared", () => {
  /**
   * Runs `asset get` against a file origin answering with `handler`: `via` "api" serves from the
   * service origin itself (undici), "cdn" from a second origin the service redirects to (the
   * engine's own HTTP/1.1 transport).
   */
  async function against(via: "api" | "cdn", handler: RawHandler, good: string[] = [FILE_SHA]) {
    const file = await server(handler);
    let base = file.url;
    if (via === "cdn") {
      const a = await server((_req, res) => {
        res.writeHead(302, { location: `${file.url}/files/model.glb` }).end();
      });
      base = a.url;
    }
    const box = sandbox();
    const started = Date.now();
    const r = await run(["asset", "get", SLUG, "-o", "out/", "--json"], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY },
      cwd: box.root,
      timeoutMs: 45_000,
    });
    expect(writtenOutside(box.root, box.before)).toEqual([]);
    expect(finalPathProblem(box.out, good)).toBeUndefined();
    return { r, box, file, base, ms: Date.now() - started };
  }

  const head = (extra: string) =>
    `HTTP/1.1 200 OK\r\ncontent-type: model/gltf-binary\r\ncontent-length: ${FILE.length}\r\netag: "h"\r\n${extra}`;

  /** Writes `next()` to the socket every few ms until the client goes away. */
  function endless(first: string, next: () => string): RawHandler {
    return (req) => {
      const socket = req.socket;
      socket.write(first);
      const timer = setInterval(() => {
        if (socket.destroyed) clearInterval(timer);
        else socket.write(next());
      }, 2);
      socket.on("close", () => clearInterval(timer));
    };
  }

  const heads: { name: string; handler: RawHandler }[] = [
    {
      name: "one 100 KiB header line",
      handler: (req) => rawReply(req, `${head(`x-big: ${"a".repeat(100 * 1024)}\r\n`)}\r\n`),
    },
    {
      name: "10 000 small headers",
      handler: (req) =>
        rawReply(
          req,
          `${head(Array.from({ length: 10_000 }, (_, i) => `x-h${i}: v\r\n`).join(""))}\r\n`,
        ),
    },
    {
      name: "header lines that never end",
      handler: endless(head(""), () => `x-more: ${"0123456789abcdef".repeat(64)}\r\n`),
    },
    {
      name: "100 Continue interim responses that never end",
      handler: endless("HTTP/1.1 100 Continue\r\n\r\n", () =>
        "HTTP/1.1 100 Continue\r\n\r\n".repeat(40),
      ),
    },
  ];
  const headCases = heads.flatMap((h) => (["api", "cdn"] as const).map((via) => ({ ...h, via })));

  it.concurrent.for(headCases)(
    "$name [$via] → exit 7, no hang, nothing written",
    async ({ handler, via }, { expect }) => {
      const { r, box } = await against(via, handler);
      expect(r.signal, "svc-dl hung and was killed").toBeNull();
      expect(r.code, r.stderr).toBe(7);
      expect(finalFiles(box.out)).toEqual([]);
    },
  );

  // CDN origin only: undici (used when the service origin serves the file itself) has no limit
  // on trailers and waits for their end forever (docs/testing.md).
  it.concurrent.for(["cdn"] as const)(
    "trailers that never end after a complete chunked body [%s] → no hang",
    async (via, { expect }) => {
      const { r, box } = await against(via, (req) => {
        const socket = req.socket;
        socket.write(
          `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\netag: "t"\r\n\r\n${FILE.length.toString(16)}\r\n`,
        );
        socket.write(FILE);
        socket.write("\r\n0\r\n");
        const timer = setInterval(() => {
          if (socket.destroyed) clearInterval(timer);
          else socket.write(`x-trailer: ${"0123456789abcdef".repeat(64)}\r\n`);
        }, 2);
        socket.on("close", () => clearInterval(timer));
      });
      expect(r.signal, "svc-dl hung and was killed").toBeNull();
      expect([0, 7]).toContain(r.code);
      if (r.code === 0) expect(sha256Of(join(box.out, "model.glb"))).toBe(FILE_SHA);
      else expect(finalFiles(box.out)).toEqual([]);
    },
  );

  const shorter = FILE.subarray(0, FILE.length - 1000);
  const declared = makeGlb(shorter.length, 7);
  const bigger: { name: string; handler: RawHandler; outcome: "corrupt" | "declared" }[] = [
    {
      name: "Content-Length 1000 smaller than the file, whole file sent",
      handler: (req) =>
        rawReply(
          req,
          Buffer.concat([
            Buffer.from(`${head("").replace(String(FILE.length), String(FILE.length - 1000))}\r\n`),
            FILE,
          ]),
        ),
      outcome: "corrupt",
    },
    {
      name: "no Content-Length, close-delimited body longer than the GLB declares",
      handler: (req) =>
        rawReply(
          req,
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 OK\r\netag: "c"\r\nconnection: close\r\n\r\n'),
            makeGlb(FILE.length, 7, FILE.length - 1000),
          ]),
        ),
      outcome: "corrupt",
    },
    {
      name: "a complete declared file followed by 1000 junk bytes on the connection",
      handler: (req) =>
        rawReply(
          req,
          Buffer.concat([
            Buffer.from(
              `HTTP/1.1 200 OK\r\ncontent-length: ${shorter.length}\r\netag: "d"\r\n\r\n`,
            ),
            declared,
            Buffer.alloc(1000, 0x5a),
          ]),
        ),
      outcome: "declared",
    },
  ];
  const biggerCases = bigger.flatMap((b) =>
    (["api", "cdn"] as const).map((via) => ({ ...b, via })),
  );

  it.concurrent.for(biggerCases)("$name [$via]", async ({ handler, outcome, via }, { expect }) => {
    const { r, box } = await against(via, handler, [FILE_SHA, sha256(declared)]);
    if (outcome === "corrupt") {
      expect(r.code, r.stderr).toBe(7);
      expect(r.error?.code).toBe("corrupt_download");
      expect(finalFiles(box.out)).toEqual([]);
    } else {
      expect(r.code, r.stderr).toBe(0);
      expect(finalFiles(box.out)).toEqual([`${SLUG}.glb`]);
      expect(sha256Of(join(box.out, `${SLUG}.glb`))).toBe(sha256(declared));
    }
  });

  it.concurrent.for(["api", "cdn"] as const)(
    "a 206 sending more than its range announced [%s] → corrupt_download, partial discarded, fetched again once from zero",
    async (via, { expect }) => {
      let hit = 0;
      const { r, box, file } = await against(via, (req, res) => {
        hit += 1;
        if (hit === 1) return serveFile(req, res, FILE, "model.glb", { dropAfter: 20_000 });
        if (hit === 2) {
          // the range announced is 20000-end, the body is the whole file
          res.writeHead(206, {
            "content-range": `bytes 20000-${FILE.length - 1}/${FILE.length}`,
            "content-length": String(FILE.length),
            etag: `"f-${FILE.length}"`,
          });
          return void res.end(FILE);
        }
        return serveFile(req, res, FILE, "model.glb");
      });
      expect(r.code, r.stderr).toBe(0);
      expect(file.requests[1]?.headers.range).toBe("bytes=20000-");
      expect(file.requests[2]?.headers.range).toBeUndefined();
      expect(sha256Of(join(box.out, "model.glb"))).toBe(FILE_SHA);
    },
  );
});
