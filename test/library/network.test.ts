import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { useMockService } from "../helpers/mock.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/proxy.js";

/** createClient's `proxy`, `caFile` and `env` (cli-contract "Library", "Networks"). */

const shared = useMockService({});
let proxy: ForwardProxy;
beforeAll(async () => {
  proxy = await startForwardProxy();
});
afterAll(async () => {
  await proxy.close();
});

const PROXY_VARS = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "https_proxy",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
];

/** Requests the proxy has seen, tunnelled or plain. */
const proxied = (): number => proxy.connects.length + proxy.plain.length;

describe("library: network options", () => {
  it("sends every request through `proxy`", async () => {
    const before = proxied();
    const c = createClient({
      baseUrl: shared.mock.baseUrl,
      apiKey: shared.mock.apiKey,
      proxy: proxy.url,
    });
    const packs = await c.listPacks();
    expect(packs.length).toBeGreaterThan(0);
    expect(proxied()).toBeGreaterThan(before);
  });

  it("ignores the process's proxy variables unless `env` passes them", async () => {
    const saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]));
    for (const k of PROXY_VARS) delete process.env[k];
    process.env.HTTP_PROXY = proxy.url;
    process.env.HTTPS_PROXY = proxy.url;
    try {
      const base = { baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey };
      const before = proxied();
      await createClient(base).whoami();
      expect(proxied()).toBe(before);
      await createClient({ ...base, env: process.env }).whoami();
      expect(proxied()).toBeGreaterThan(before);
    } finally {
      for (const k of PROXY_VARS) {
        const v = saved[k];
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("refuses a bad proxy or an unreadable CA file at once (exitCode 2)", () => {
    const baseUrl = shared.mock.baseUrl;
    expect(() => createClient({ baseUrl, proxy: "ftp://127.0.0.1:1" })).toThrow(
      expect.objectContaining({ code: "invalid_proxy", exitCode: 2 }),
    );
    expect(() => createClient({ baseUrl, caFile: "/nonexistent/ca.pem" })).toThrow(
      expect.objectContaining({ code: "invalid_ca_file", exitCode: 2 }),
    );
  });
});
