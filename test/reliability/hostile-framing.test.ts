/**
 * Hostile HTTP/1.1 framing over real loopback (cli-contract "Downloads", "Retries and rate
 * limits"): every response that breaks the framing rules, with the bad bytes in the same
 * socket write as the head, ends in exit 7 after the retry policy, with no stack trace and no
 * final file; inside `packs sync` only that item fails. llhttp (inside undici) refuses what a
 * hand-written parser got wrong.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import { registerSecret } from "../helpers/cli.js";
import { startFrontServer } from "../helpers/front-server.js";
import { makeGlb, type RawServer, rawReply, startRawServer } from "../helpers/raw-server.js";
import { finalFiles, run, tempDir } from "./helpers/harness.js";

const KEY = "svc_live_Fram1ngTestKeyAbCdEf0123456789xyz_0f0f0f0f";
registerSecret(KEY);
const SLUG = "framed-asset";
const FILE = makeGlb(40_000, 3);
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: model/gltf-binary\r\netag: "f1"\r\n';

/** Chunked body `data` as one chunk with a given size line and trailer bytes. */
function chunk(sizeLine: string, data: Buffer, after = "\r\n"): Buffer {
  return Buffer.concat([Buffer.from(`${sizeLine}\r\n`), data, Buffer.from(`${after}0\r\n\r\n`)]);
}

const framingCases: { name: string; bytes: () => Buffer }[] = [
  {
    name: "content-length: +40000",
    bytes: () => Buffer.concat([Buffer.from(`${HEAD}content-length: +40000\r\n\r\n`), FILE]),
  },
  {
    name: "two different Content-Length values",
    bytes: () =>
      Buffer.concat([
        Buffer.from(`${HEAD}content-length: 40000\r\ncontent-length: 39999\r\n\r\n`),
        FILE,
      ]),
  },
  {
    name: "a 17-digit Content-Length",
    bytes: () =>
      Buffer.concat([Buffer.from(`${HEAD}content-length: 10000000000040000\r\n\r\n`), FILE]),
  },
  {
    name: "content-length: 4e4",
    bytes: () => Buffer.concat([Buffer.from(`${HEAD}content-length: 4e4\r\n\r\n`), FILE]),
  },
  ...["-1", "0x10", " 9c40", "9c40zz"].map((line) => ({
    name: `chunk-size line ${JSON.stringify(line)}`,
    bytes: () =>
      Buffer.concat([Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`), chunk(line, FILE)]),
  })),
  {
    name: "chunk-size of 13 hex digits",
    bytes: () =>
      Buffer.concat([
        Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`),
        chunk("1000000000000", FILE),
      ]),
  },
  {
    name: "missing CRLF after chunk data",
    bytes: () =>
      Buffer.concat([
        Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n`),
        chunk("9c40", FILE, "XX"),
      ]),
  },
  {
    name: "Transfer-Encoding: chunked together with Content-Length",
    bytes: () =>
      Buffer.concat([
        Buffer.from(`${HEAD}transfer-encoding: chunked\r\ncontent-length: 40000\r\n\r\n`),
        chunk("9c40", FILE),
      ]),
  },
];

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A raw service: the API route redirects to `/files/…` on the same origin, which answers `bytes`. */
async function hostileService(bytes: () => Buffer): Promise<RawServer> {
  const s = await startRawServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === `/api/v1/assets/${SLUG}/download`) {
      res.writeHead(302, { location: `/files/${SLUG}.glb?sig=abc`, "content-length": "0" }).end();
      return;
    }
    rawReply(req, bytes());
  });
  servers.push(s);
  return s;
}

describe("bad framing in the same read as the head", { timeout: 120_000 }, () => {
  it.concurrent.for(framingCases)(
    "$name → exit 7 after the retries, no stack, no file",
    async (c, { expect }) => {
      const s = await hostileService(c.bytes);
      const dir = tempDir("svc-dl-framing-");
      const r = await run(["asset", "get", SLUG, "--json"], {
        env: { SVC_BASE_URL: s.url, SVC_API_KEY: KEY },
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(7);
      // bad_framing: llhttp refused the head or a chunk line; network_error: the body ended
      // short of its size; unexpected_response: resumes answered 200 again (3 restarts from zero).
      expect(["bad_framing", "network_error", "unexpected_response"]).toContain(r.error?.code);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(finalFiles(dir)).toEqual([]);
      const fileRequests = s.requests.filter((q) => q.url.startsWith("/files/"));
      // retried by policy, and never more than 5 tries or 3 restarts allow
      expect(fileRequests.length).toBeGreaterThanOrEqual(2);
      expect(fileRequests.length).toBeLessThanOrEqual(9);
    },
  );
});

describe("a framing violation is a server bug, not a transient fault", () => {
  it("Transfer-Encoding: chunked with Content-Length → exit 7 bad_framing naming both, after one retry", async () => {
    const teAndCl = framingCases.find((c) => c.name.includes("together with Content-Length"));
    expect(teAndCl).toBeDefined();
    const s = await hostileService(teAndCl?.bytes ?? (() => Buffer.alloc(0)));
    const dir = tempDir("svc-dl-framing-te-cl-");
    const r = await run(["asset", "get", SLUG, "--json"], {
      env: { SVC_BASE_URL: s.url, SVC_API_KEY: KEY },
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.error?.code).toBe("bad_framing");
    expect(r.error?.message).toContain("Content-Length can't be present with Transfer-Encoding");
    expect(s.requests.filter((q) => q.url.startsWith("/files/"))).toHaveLength(2);
    expect(finalFiles(dir)).toEqual([]);
  });
});

describe("inside packs sync only the hostile item fails", { timeout: 120_000 }, () => {
  it("a pack whose download breaks framing fails; the packs after it are still fetched; JSON on stdout", async () => {
    const mock = await startMockService({
      quiet: true,
      packSize: 30_000,
      limits: { download: { quota: 1000, windowSeconds: 60 } },
    });
    servers.push(mock);
    let frontUrl = "";
    const listed: string[] = [];
    const front = await startFrontServer(
      mock.baseUrl,
      (req) => {
        const m = /^\/api\/v1\/packs\/([^/?]+)\/download/.exec(req.url ?? "");
        if (m && m[1] === listed[0]) {
          rawReply(req, framingCases[1]?.bytes() ?? Buffer.alloc(0));
          return true;
        }
        return false;
      },
      (path, body) => {
        if (path.startsWith("/api/v1/packs") && Array.isArray((body as { data?: unknown }).data)) {
          for (const p of (body as { data: { slug: string }[] }).data) listed.push(p.slug);
        }
        return JSON.parse(JSON.stringify(body).split(mock.baseUrl).join(frontUrl)) as unknown;
      },
    );
    frontUrl = front.url;
    servers.push(front);
    const dir = tempDir("svc-dl-framing-sync-");
    const r = await run(["packs", "sync", dir, "--json"], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: mock.apiKey },
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const doc = JSON.parse(r.stdout) as {
      items: { slug: string; status: string; error: { code: string } | null }[];
    };
    const bad = doc.items.filter((i) => i.slug === listed[0]);
    const good = doc.items.filter((i) => i.slug !== listed[0]);
    expect(bad.map((i) => i.status)).toContain("failed");
    expect(["bad_framing", "network_error"]).toContain(
      bad.find((i) => i.status === "failed")?.error?.code,
    );
    expect(good.length).toBeGreaterThan(0);
    expect(good.every((i) => i.status !== "failed")).toBe(true);
  });
});
