/**
 * Plain-http (loopback) origins and proxies, over real loopback (cli-contract "Networks",
 * "Untrusted text, paths and caches"): a proxy on loopback is still used for them, a proxy that
 * is not on loopback is bypassed (the request and its key would cross it in clear text), and
 * NO_PROXY matches CIDR blocks and bare IPv6 addresses as curl does. The "remote" proxy is the
 * real forward proxy named by a host name that a test resolver maps to 127.0.0.1.
 */
import { lookup as dnsLookup } from "node:dns";
import { createServer } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, listEnvelope, MeSchema, PackSchema } from "../../src/api/schemas.js";
import { HttpClient } from "../../src/http/client.js";
import type { NetworkSettings } from "../../src/http/dispatcher.js";
import * as z from "../../src/io/schema.js";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/proxy.js";

const REMOTE_NAME = "proxy.corp.example";

/** Resolves {@link REMOTE_NAME} to 127.0.0.1, every other name as the system does. */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== REMOTE_NAME) {
    dnsLookup(hostname, options, callback);
    return;
  }
  if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

let mock: MockService;
let proxy: ForwardProxy;
beforeAll(async () => {
  mock = await startMockService({ quiet: true });
  registerSecret(mock.apiKey);
  proxy = await startForwardProxy();
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
});

/** Requests the proxy has seen, tunnelled or plain. */
const proxied = (): number => proxy.connects.length + proxy.plain.length;

function client(baseUrl: string, network: Omit<NetworkSettings, "env">): HttpClient {
  return new HttpClient({
    baseUrl: new URL(baseUrl),
    apiKey: () => mock.apiKey,
    userAgent: "svc-dl/test",
    network: { env: {}, lookup, ...network },
    retry: { maxTries: 1 },
  });
}

describe("a plain-http loopback service and a proxy", () => {
  it("a proxy named by a non-loopback host is bypassed: API and CDN direct, the key never reaches it", async () => {
    const remote = `http://${REMOTE_NAME}:${proxy.port}`;
    const before = proxied();
    const c = client(mock.baseUrl, { proxy: remote });
    try {
      const me = await c.getJson(c.apiUrl("me"), envelope(MeSchema));
      expect(me.body.data).toBeDefined();
      const packs = await c.getJson(c.apiUrl("packs"), listEnvelope(PackSchema));
      const slug = packs.body.data[0]?.slug ?? "";
      // the API route answers with a redirect to the mock's http CDN, followed by send()
      const file = await c.send({ url: c.apiUrl(`packs/${slug}/download`) });
      file.body.dump();
      expect(file.status).toBe(200);
      expect(file.url.origin).toBe(new URL(mock.cdnUrl).origin);
    } finally {
      await c.close();
    }
    expect(proxied()).toBe(before);
    expect(proxy.seen().toString("latin1")).not.toContain(mock.apiKey);
  });

  it("the same proxy name does reach the proxy for https (CONNECT: the proxy never sees the key)", async () => {
    const before = proxy.connects.length;
    const c = client("https://svc.example.invalid", {
      proxy: `http://${REMOTE_NAME}:${proxy.port}`,
    });
    const err = await c.getJson(c.apiUrl("me"), envelope(MeSchema)).catch((e: unknown) => e);
    await c.close();
    expect(err).toMatchObject({ code: "proxy_error" });
    expect(proxy.connects.slice(before)).toEqual(["svc.example.invalid:443"]);
  });

  it.each([
    ["127.0.0.1", () => proxy.url],
    ["localhost", () => `http://localhost:${proxy.port}`],
  ])(
    "a proxy on loopback (%s) is still used for the http service (HTTP_PROXY)",
    async (_n, url) => {
      const before = proxied();
      const r = await runCli(["whoami", "--json"], {
        cwd: tempDir("svc-dl-proxy-http-"),
        env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey, HTTP_PROXY: url() },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(proxied()).toBeGreaterThan(before);
    },
  );
});

describe("NO_PROXY with CIDR blocks and bare IPv6 addresses", () => {
  it.each(["127.0.0.0/8", "10.0.0.0/8,127.0.0.0/16"])(
    "NO_PROXY=%s sends the loopback service direct",
    async (noProxy) => {
      const before = proxied();
      const r = await runCli(["whoami", "--json"], {
        cwd: tempDir("svc-dl-proxy-cidr-"),
        env: {
          SVC_BASE_URL: mock.baseUrl,
          SVC_API_KEY: mock.apiKey,
          HTTP_PROXY: proxy.url,
          NO_PROXY: noProxy,
        },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(proxied()).toBe(before);
    },
  );

  it.each(["::1", "::1/128", "[::1]"])(
    "NO_PROXY=%s sends a [::1] service direct",
    async (noProxy) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" }).end('{"data":{}}');
      });
      await new Promise<void>((resolve) => server.listen(0, "::1", resolve));
      const before = proxied();
      const port = (server.address() as AddressInfo).port;
      const c = new HttpClient({
        baseUrl: new URL(`http://[::1]:${port}`),
        apiKey: () => mock.apiKey,
        userAgent: "svc-dl/test",
        network: { env: { HTTP_PROXY: proxy.url, NO_PROXY: noProxy } },
        retry: { maxTries: 1 },
      });
      try {
        const r = await c.getJson(c.apiUrl("me"), z.looseObject({}));
        expect(r.body).toEqual({ data: {} });
      } finally {
        await c.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      expect(proxied()).toBe(before);
    },
  );
});
