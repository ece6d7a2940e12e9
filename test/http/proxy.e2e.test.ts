/**
 * Proxies and private CAs over real loopback (cli-contract "Networks: proxies, certificates,
 * timeouts"): a real forward proxy (CONNECT) started here, the mock service behind two TLS
 * fronts (API and CDN) signed by a private CA. API and CDN requests go through the proxy,
 * NO_PROXY is honoured, lower-case variables win, the key never crosses the proxy in clear nor
 * reaches the CDN, and proxy credentials are never printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { type CliResult, registerSecret, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { type FrontServer, startTlsFronts } from "../helpers/front-server.js";
import { type ForwardProxy, NO_PROXY_ENV, startForwardProxy } from "../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";

let mock: MockService;
let cert: SelfSignedCert;
let api: FrontServer;
let cdn: FrontServer;
let proxy: ForwardProxy;
let slug = "";

beforeAll(async () => {
  const made = makeSelfSignedCert(["IP:127.0.0.1"]);
  if (!made) throw new Error("openssl is needed for the private CA");
  cert = made;
  mock = await startMockService({ quiet: true });
  registerSecret(mock.apiKey);
  ({ api, cdn } = await startTlsFronts(mock, cert));
  proxy = await startForwardProxy();
  const list = await cli(["packs", "list", "--json"], {});
  slug = (JSON.parse(list.stdout) as { slug: string }[])[0]?.slug ?? "";
});

afterAll(async () => {
  await proxy?.close();
  await api?.close();
  await cdn?.close();
  await mock?.close();
});

/** Runs the CLI against the TLS fronts with the private CA trusted through SVC_CA_FILE. */
function cli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return runCli(args, {
    cwd: tempDir("svc-dl-proxy-"),
    env: {
      ...NO_PROXY_ENV,
      SVC_BASE_URL: api.url,
      SVC_API_KEY: mock.apiKey,
      SVC_CA_FILE: cert.caFile,
      ...env,
    },
  });
}

const hostOf = (url: string): string => new URL(url).host;

describe("proxies (HTTPS_PROXY, NO_PROXY, --proxy)", () => {
  it("API and CDN requests go through CONNECT tunnels; the key never crosses the proxy in clear nor reaches the CDN", async () => {
    const before = proxy.connects.length;
    const cdnBefore = cdn.headersSeen.length;
    const r = await cli(["pack", "get", slug, "--json"], { HTTPS_PROXY: proxy.url });
    expect(r.code, r.stderr).toBe(0);
    const tunnels = proxy.connects.slice(before);
    expect(tunnels).toContain(hostOf(api.url));
    expect(tunnels).toContain(hostOf(cdn.url));
    expect(proxy.plain).toEqual([]);
    const seen = proxy.seen().toString("latin1");
    expect(seen).not.toContain(mock.apiKey);
    expect(seen).not.toContain(mock.apiKey.slice(9, 25));
    const cdnHeaders = cdn.headersSeen.slice(cdnBefore);
    expect(cdnHeaders.length).toBeGreaterThan(0);
    expect(cdnHeaders.every((h) => h.authorization === undefined)).toBe(true);
  });

  it("lower-case https_proxy wins over HTTPS_PROXY", async () => {
    const before = proxy.connects.length;
    const r = await cli(["whoami", "--json"], {
      HTTPS_PROXY: "http://127.0.0.1:9",
      https_proxy: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.slice(before)).toContain(hostOf(api.url));
  });

  it("NO_PROXY sends matching hosts directly", async () => {
    const before = proxy.connects.length;
    const r = await cli(["pack", "get", slug, "--json"], {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: "127.0.0.1",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.length).toBe(before);
  });

  it("--proxy with credentials: used for every request, the credentials never printed", async () => {
    const before = proxy.connects.length;
    const authBefore = proxy.authorizations.length;
    const withCreds = proxy.url.replace("http://", "http://alice:s3cretPr0xyPw@");
    const r = await cli(["whoami", "--verbose", "--proxy", withCreds], {});
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.slice(before)).toContain(hostOf(api.url));
    expect(proxy.authorizations.slice(authBefore)).toContain(
      `Basic ${Buffer.from("alice:s3cretPr0xyPw").toString("base64")}`,
    );
    expect(r.stderr).not.toContain("s3cretPr0xyPw");
    expect(r.stdout).not.toContain("s3cretPr0xyPw");
  });

  it("a host the proxy cannot resolve (502 to CONNECT) → exit 7 proxy_error at once, naming both", async () => {
    const before = proxy.connects.length;
    const r = await cli(["whoami", "--json", "--proxy", proxy.url], {
      SVC_BASE_URL: "https://no-such-host.invalid",
    });
    expect(r.code, r.stderr).toBe(7);
    const error = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}").error;
    expect(error).toMatchObject({ code: "proxy_error", retryable: false });
    expect(error.message).toContain("HTTP 502");
    expect(error.message).toContain("no-such-host.invalid");
    expect(error.message).toContain(proxy.url);
    // reported at once, as curl does: one tunnel asked for, no retry
    expect(proxy.connects.slice(before)).toEqual(["no-such-host.invalid:443"]);
  });

  it("a proxy that closes the connection on CONNECT → exit 7 proxy_error after one tunnel (never a loop)", async () => {
    const dropping = await startForwardProxy({ closeOnConnect: true });
    try {
      const r = await cli(["whoami", "--json", "--proxy", dropping.url], {
        SVC_BASE_URL: "https://no-such-host.invalid",
      });
      expect(r.code, r.stderr).toBe(7);
      const error = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}").error;
      expect(error).toMatchObject({ code: "proxy_error", retryable: false });
      expect(error.message).toContain("closed the connection");
      expect(error.message).toContain("no-such-host.invalid");
      // undici alone would open tunnel after tunnel for ever
      expect(dropping.connects).toEqual(["no-such-host.invalid:443"]);
    } finally {
      await dropping.close();
    }
  });

  it("a proxy that wants a login (407) → exit 7 proxy_error saying so, no retry, no password shown", async () => {
    const guarded = await startForwardProxy({
      requireAuth: `Basic ${Buffer.from("bob:right").toString("base64")}`,
    });
    try {
      const wrong = guarded.url.replace("http://", "http://bob:wr0ngPassw0rd@");
      const r = await cli(["whoami", "--proxy", wrong], {});
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain("code proxy_error");
      expect(r.stderr).toContain("HTTP 407");
      expect(r.stderr).toContain("wants a login");
      expect(r.stderr).not.toContain("wr0ngPassw0rd");
      expect(guarded.connects).toHaveLength(1);
      const right = guarded.url.replace("http://", "http://bob:right@");
      expect((await cli(["whoami", "--proxy", right], {})).code).toBe(0);
    } finally {
      await guarded.close();
    }
  });

  it("a loopback http service goes through HTTP_PROXY too (API and CDN)", async () => {
    const before = proxy.connects.length;
    const r = await runCli(["pack", "get", slug, "--json"], {
      cwd: tempDir("svc-dl-proxy-http-"),
      env: {
        ...NO_PROXY_ENV,
        SVC_BASE_URL: mock.baseUrl,
        SVC_API_KEY: mock.apiKey,
        HTTP_PROXY: proxy.url,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const tunnels = proxy.connects.slice(before);
    expect(tunnels).toContain(hostOf(mock.baseUrl));
    expect(tunnels).toContain(hostOf(mock.cdnUrl));
  });

  it("config proxy applies when no flag or variable is set", async () => {
    const configDir = tempDir("svc-dl-proxy-config-");
    const set = await cli(["config", "set", "proxy", proxy.url], { SVC_DL_CONFIG_DIR: configDir });
    expect(set.code, set.stderr).toBe(0);
    const before = proxy.connects.length;
    const r = await cli(["whoami", "--json"], { SVC_DL_CONFIG_DIR: configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.connects.slice(before)).toContain(hostOf(api.url));
  });
});

describe("private CA", () => {
  it("without the CA the TLS service is refused at once (tls_error); --ca-file and config ca-file trust it", async () => {
    const refused = await cli(["whoami", "--json"], { SVC_CA_FILE: undefined });
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain("tls_error");
    const flag = await cli(["whoami", "--json", "--ca-file", cert.caFile], {
      SVC_CA_FILE: undefined,
    });
    expect(flag.code, flag.stderr).toBe(0);
    const configDir = tempDir("svc-dl-ca-config-");
    const set = await cli(["config", "set", "ca-file", cert.caFile], {
      SVC_DL_CONFIG_DIR: configDir,
    });
    expect(set.code, set.stderr).toBe(0);
    const viaConfig = await cli(["whoami", "--json"], {
      SVC_CA_FILE: undefined,
      SVC_DL_CONFIG_DIR: configDir,
    });
    expect(viaConfig.code, viaConfig.stderr).toBe(0);
  });

  it("NODE_EXTRA_CA_CERTS alone is honoured, and kept when a CA file is added", async () => {
    const viaNode = await cli(["whoami", "--json"], {
      SVC_CA_FILE: undefined,
      NODE_EXTRA_CA_CERTS: cert.caFile,
    });
    expect(viaNode.code, viaNode.stderr).toBe(0);
    const other = makeSelfSignedCert(["DNS:other.example"]);
    if (!other) throw new Error("openssl is needed");
    const both = await cli(["whoami", "--json"], {
      SVC_CA_FILE: other.caFile,
      NODE_EXTRA_CA_CERTS: cert.caFile,
    });
    expect(both.code, both.stderr).toBe(0);
  });
});
