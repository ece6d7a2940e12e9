/**
 * Interim (1xx) answers before a CDN's answer when undici carries the body (cli-contract
 * "Networks"; RFC 9110 §15.2; docs/testing.md "Interim answers"): through a real forward
 * proxy's CONNECT tunnel, and after the body fast path handed an answer it does not take to
 * undici. A raw service redirects to a raw CDN behind a relay that writes a `100 Continue`
 * before every answer; the saved file must be the served bytes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient } from "../../src/http/client.js";
import { downloadAssetWith } from "../helpers/download.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/proxy.js";
import { makeGlb, type RawServer, serveFile, startRawServer } from "../helpers/raw-server.js";
import { type InterimRelay, startInterimRelay } from "./interim-relay.js";

const SLUG = "interim-asset";
const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
/** A GLB whose bytes hold an interim answer's text: a body is passed on untouched. */
const FILE = makeGlb(256 * 1024, 9);
FILE.write(`${CONTINUE}HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n`, 64, "latin1");
FILE.write(CONTINUE, FILE.length - CONTINUE.length, "latin1");

const closers: { close(): Promise<void> }[] = [];
let proxy: ForwardProxy;
beforeAll(async () => {
  proxy = await startForwardProxy();
  closers.push(proxy);
});
afterAll(async () => {
  for (const c of closers) await c.close();
});

/** A raw CDN serving FILE (chunked when `chunked`) behind a relay that sends 100 first. */
async function cdn(chunked: boolean): Promise<{ relay: InterimRelay; files: RawServer }> {
  const files = await startRawServer((req, res) =>
    serveFile(req, res, FILE, `${SLUG}.glb`, { contentLength: !chunked }),
  );
  const relay = await startInterimRelay(files.url, () => [CONTINUE]);
  closers.push(files, relay);
  return { relay, files };
}

/** A raw service whose download route redirects to `cdnUrl`. */
async function service(cdnUrl: string): Promise<RawServer> {
  const api = await startRawServer((req, res) => {
    if (req.url !== `/api/v1/assets/${SLUG}/download`) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(302, { location: `${cdnUrl}/files/${SLUG}.glb`, "content-length": "0" }).end();
  });
  closers.push(api);
  return api;
}

/** Downloads the asset from `base` (through `proxyUrl` when given): outcome and saved bytes. */
async function download(base: string, proxyUrl?: string) {
  const http = new HttpClient({
    baseUrl: new URL(base),
    apiKey: () => "svc_live_InterimTestKey0123456789abcdefghij_0a0b0c0d",
    userAgent: "svc-dl/test",
    network: { env: {}, ...(proxyUrl ? { proxy: proxyUrl } : {}) },
    retry: { maxTries: 2, baseDelayMs: 1, maxDelayMs: 2 },
  });
  try {
    const { outcome, dir } = await downloadAssetWith(http, SLUG);
    return { outcome, saved: () => readFileSync(join(dir, `${SLUG}.glb`)) };
  } finally {
    await http.close();
  }
}

describe("a 100 Continue before a CDN answer that undici carries", () => {
  it("through a proxy's CONNECT tunnel: the served bytes, one CDN request", async () => {
    const { relay, files } = await cdn(false);
    const api = await service(relay.url);
    const before = proxy.connects.length;
    const { outcome, saved } = await download(api.url, proxy.url);
    expect(outcome).toMatchObject({ status: "downloaded" });
    expect(saved().equals(FILE)).toBe(true);
    expect(proxy.connects.slice(before)).toContain(new URL(relay.url).host);
    expect(files.requests).toHaveLength(1);
  });

  it("an answer the body fast path hands to undici (chunked): the served bytes", async () => {
    const { relay, files } = await cdn(true);
    const api = await service(relay.url);
    const { outcome, saved } = await download(api.url);
    expect(outcome).toMatchObject({ status: "downloaded" });
    expect(saved().equals(FILE)).toBe(true);
    // the fast path's request, then undici's
    expect(files.requests).toHaveLength(2);
  });
});
