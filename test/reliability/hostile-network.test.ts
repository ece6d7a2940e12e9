/**
 * Hostile servers and networks over real loopback (cli-contract "Networks", "Downloads",
 * "Retries and rate limits"): a CDN that ignores Range and drops at a fixed offset, cut JSON
 * and error bodies, silence, certificate and DNS failures, download URLs with refused schemes.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../src/errors/network-error.js";
import { HttpClient } from "../../src/http/client.js";
import type { NetworkSettings } from "../../src/http/dispatcher.js";
import type { RetrySettings } from "../../src/http/retry.js";
import { startMockService } from "../../src/mock-server/index.js";
import { registerSecret } from "../helpers/cli.js";
import { downloadAssetWith } from "../helpers/download.js";
import { startFrontServer } from "../helpers/front-server.js";
import { makeGlb, type RawServer, serveFile, startRawServer } from "../helpers/raw-server.js";
import { makeSelfSignedCert } from "../helpers/tls.js";
import { finalFiles, run, tempDir } from "./helpers/harness.js";

const KEY = "svc_live_N3tworkHostileKeyAbCdEf0123456789_a1b2c3d4";
registerSecret(KEY);
const SLUG = "net-asset";
const FILE = makeGlb(96 * 1024, 9);

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of closers) await c.close();
});

async function raw(handler: Parameters<typeof startRawServer>[0]): Promise<RawServer> {
  const s = await startRawServer(handler);
  closers.push(s);
  return s;
}

/** Downloads the asset from raw server `s` in-process with shortened network limits (2 tries unless `retry` says). */
async function fetchWith(
  s: RawServer,
  network: Omit<NetworkSettings, "env">,
  retry: Partial<RetrySettings> = { maxTries: 2, baseDelayMs: 1, maxDelayMs: 2 },
) {
  const client = new HttpClient({
    baseUrl: new URL(s.url),
    apiKey: () => KEY,
    userAgent: "svc-dl/test",
    network: { env: {}, ...network },
    retry,
  });
  const { outcome, dir } = await downloadAssetWith(client, SLUG);
  await client.close().catch(() => undefined);
  return { outcome, dir };
}

describe("a CDN that ignores Range and drops at the same offset", { timeout: 90_000 }, () => {
  it("ends with exit 7 within a minute, after a bounded number of requests", async () => {
    const s = await raw((req, res) => {
      if (req.url === `/api/v1/assets/${SLUG}/download`) {
        res.writeHead(302, { location: "/cdn/model.glb", "content-length": "0" }).end();
        return;
      }
      serveFile(req, res, FILE, "model.glb", { ranges: false, dropAfter: 30_000 });
    });
    const dir = tempDir("svc-dl-net-");
    const started = Date.now();
    const r = await run(["asset", "get", SLUG, "--json"], {
      env: { SVC_BASE_URL: s.url, SVC_API_KEY: KEY },
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(Date.now() - started).toBeLessThan(60_000);
    const cdn = s.requests.filter((q) => q.url.startsWith("/cdn/"));
    expect(cdn.length).toBeGreaterThanOrEqual(2);
    expect(cdn.length).toBeLessThanOrEqual(9);
    expect(finalFiles(dir)).toEqual([]);
  });
});

describe("cut JSON and error bodies are retried", () => {
  it.each([
    ["a 200 JSON body", 200],
    ["an error body", 404],
  ])("%s cut mid-body → retried, then exit 0", async (_name, status) => {
    const mock = await startMockService({ quiet: true });
    closers.push(mock);
    let cuts = 0;
    const front = await startFrontServer(mock.baseUrl, (req, res) => {
      if (!req.url?.startsWith("/api/v1/me") || cuts > 0) return false;
      cuts += 1;
      res.writeHead(status, { "content-type": "application/json", "content-length": "400" });
      res.write('{"data":{"account":', () => setTimeout(() => res.destroy(), 20));
      return true;
    });
    closers.push(front);
    const dir = tempDir("svc-dl-net-cut-");
    const r = await run(["whoami", "--json"], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(front.paths.filter((p) => p.startsWith("/api/v1/me"))).toHaveLength(2);
  });
});

describe("silence abandons an attempt (timeout injected)", () => {
  it.each([
    ["no response head", false],
    ["a head, then no body bytes", true],
  ])("%s → timeout, retried, then NetworkError timeout", async (_name, sendHead) => {
    const s = await raw((req, res) => {
      if (req.url === `/api/v1/assets/${SLUG}/download`) {
        res.writeHead(302, { location: "/cdn/model.glb", "content-length": "0" }).end();
        return;
      }
      if (sendHead) {
        res.writeHead(200, { "content-length": String(FILE.length), etag: '"s1"' });
        res.flushHeaders();
      }
      // …and then nothing: the socket stays open and silent.
    });
    const { outcome: err, dir } = await fetchWith(s, { idleTimeoutMs: 300 });
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe("timeout");
    expect(s.requests.filter((q) => q.url.startsWith("/cdn/"))).toHaveLength(2);
    expect(finalFiles(dir)).toEqual([]);
  });
});

describe("a CDN that sends some bytes, then stalls, on every connection (silence limit injected)", () => {
  it("the item fails after 4 silent attempts though each made progress (and resumed)", async () => {
    const big = makeGlb(1024 * 1024, 11);
    const s = await raw((req, res) => {
      if (req.url === `/api/v1/assets/${SLUG}/download`) {
        res.writeHead(302, { location: "/cdn/model.glb", "content-length": "0" }).end();
        return;
      }
      const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0);
      const headers: Record<string, string> = {
        etag: '"stall1"',
        "content-length": String(big.length - start),
      };
      if (start > 0) headers["content-range"] = `bytes ${start}-${big.length - 1}/${big.length}`;
      res.writeHead(start > 0 ? 206 : 200, headers);
      // 128 KiB of progress, then silence with the connection open
      res.write(big.subarray(start, start + 128 * 1024));
    });
    const { outcome, dir } = await fetchWith(
      s,
      { idleTimeoutMs: 200 },
      { baseDelayMs: 1, maxDelayMs: 2 },
    );
    expect(outcome).toBeInstanceOf(NetworkError);
    expect(outcome).toMatchObject({ code: "timeout", exitCode: 7 });
    expect((outcome as NetworkError).message).toContain(
      "gave up after 4 attempts that went silent",
    );
    const cdn = s.requests.filter((q) => q.url.startsWith("/cdn/"));
    expect(cdn.map((q) => q.headers.range ?? "")).toEqual([
      "",
      `bytes=${128 * 1024}-`,
      `bytes=${256 * 1024}-`,
      `bytes=${384 * 1024}-`,
    ]);
    expect(finalFiles(dir)).toEqual([]);
  });
});

describe("a trickling body is abandoned by the low-speed limit (window injected)", () => {
  /** Serves FILE (Range ignored) in `step`-byte pieces every `everyMs` ms. */
  function trickle(step: number, everyMs: number) {
    return raw((req, res) => {
      if (req.url === `/api/v1/assets/${SLUG}/download`) {
        res.writeHead(302, { location: "/cdn/model.glb", "content-length": "0" }).end();
        return;
      }
      res.writeHead(200, { "content-length": String(FILE.length), etag: '"t1"' });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent >= FILE.length) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(FILE.subarray(sent, sent + step));
        sent += step;
      }, everyMs);
      res.on("close", () => clearInterval(timer));
    });
  }

  it("below the limit for a whole window → timeout, retried, then NetworkError timeout", async () => {
    const s = await trickle(16, 20);
    const { outcome, dir } = await fetchWith(s, { lowSpeed: { bytes: 64 * 1024, windowMs: 200 } });
    expect(outcome).toBeInstanceOf(NetworkError);
    expect((outcome as NetworkError).code).toBe("timeout");
    expect((outcome as NetworkError).message).toContain("low-speed limit");
    expect(s.requests.filter((q) => q.url.startsWith("/cdn/"))).toHaveLength(2);
    expect(finalFiles(dir)).toEqual([]);
  });

  it("a steady body above the limit completes across several windows", async () => {
    const s = await trickle(8 * 1024, 10);
    const { outcome, dir } = await fetchWith(s, { lowSpeed: { bytes: 1024, windowMs: 30 } });
    expect(outcome).toMatchObject({ status: "downloaded", bytes: FILE.length });
    expect(finalFiles(dir)).toEqual([`${SLUG}.glb`]);
  });
});

describe("certificate and DNS failures fail at once with a hint", () => {
  it("an untrusted certificate → exit 7 tls_error naming the host and the CA options; one connection", async () => {
    const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
    expect(cert).toBeDefined();
    if (!cert) return;
    let handshakes = 0;
    const server: HttpsServer = createHttpsServer({ key: cert.key, cert: cert.cert }, (_q, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"data":{}}');
    });
    server.on("connection", () => {
      handshakes += 1;
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push({
      close: () => {
        server.closeAllConnections();
        return new Promise<void>((r) => server.close(() => r()));
      },
    });
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = tempDir("svc-dl-net-tls-");
    const r = await run(["whoami", "--json"], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.error?.code).toBe("tls_error");
    expect(r.error?.message).toContain("127.0.0.1");
    expect(handshakes).toBe(1);
    const human = await run(["whoami"], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(human.code).toBe(7);
    expect(human.stderr).toContain("--ca-file");
    expect(human.stderr).toContain("SVC_CA_FILE");
    // With the CA trusted the same call goes through.
    const ok = await run(["api", "/me", "--ca-file", cert.caFile], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(ok.code, ok.stderr).toBe(0);
    const viaEnv = await run(["api", "/me"], {
      env: { SVC_BASE_URL: base, SVC_API_KEY: KEY, SVC_CA_FILE: cert.caFile },
      cwd: dir,
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
  });

  it("a host name that does not resolve → exit 7 dns_error naming it, no retries", async () => {
    const dir = tempDir("svc-dl-net-dns-");
    const r = await run(["whoami", "--json"], {
      env: { SVC_BASE_URL: "https://no-such-host.invalid", SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.error?.code).toBe("dns_error");
    expect(r.error?.message).toContain("no-such-host.invalid");
    expect(r.error?.retryable).toBe(false);
    // no "retry N/M in Xs" notice: a name that does not resolve is not retried
    expect(r.stderr).not.toMatch(/retry \d/);
  });
});

describe("download URLs obey the scheme rules before any request", () => {
  it.each([
    ["ftp://127.0.0.1:PORT/x.zip", "unsupported_scheme"],
    ["gopher://127.0.0.1:PORT/x.zip", "unsupported_scheme"],
    ["http://cdn.example.invalid:PORT/x.zip", "insecure_url"],
  ])("a pack record's downloads.bundle %s → exit 7 %s, no request", async (template, code) => {
    const mock = await startMockService({ quiet: true });
    closers.push(mock);
    const target = await raw((_q, res) => {
      res.writeHead(200).end("nope");
    });
    const bundle = template.replace("PORT", String(target.port));
    const front = await startFrontServer(
      mock.baseUrl,
      () => false,
      (path, body) => {
        if (!path.startsWith("/api/v1/packs")) return body;
        const b = body as { data?: { downloads?: { bundle?: string } }[] };
        for (const p of b.data ?? []) if (p.downloads) p.downloads.bundle = bundle;
        return b;
      },
    );
    closers.push(front);
    const list = await run(["packs", "list", "--json"], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      cwd: tempDir(),
    });
    const slug = (list.doc as unknown as { slug: string }[] | undefined)?.[0]?.slug ?? "";
    const dir = tempDir("svc-dl-net-scheme-");
    const r = await run(["pack", "get", slug, "--json"], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.error?.code).toBe(code);
    expect(target.requests).toEqual([]);
    expect(finalFiles(dir)).toEqual([]);
  });
});
