import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_COMMAND, renderHint } from "../../../src/errors/codes.js";
import { runCli } from "../../helpers/cli.js";
import { useMockService } from "../../helpers/mock.js";
import { NO_PROXY_ENV, startForwardProxy } from "../../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../../helpers/tls.js";

/** `svc-dl doctor`: DNS, proxy in use, TCP and TLS to the API origin (cli-contract "Operating unattended"). */

const shared = useMockService();

interface DoctorDoc {
  checks: { name: string; status: string; finding: string; hint: string | null }[];
}

async function doctor(args: string[], env: Record<string, string | undefined>) {
  const r = await runCli(["doctor", "--json", ...args], { env: { ...NO_PROXY_ENV, ...env } });
  const doc = JSON.parse(r.stdout) as DoctorDoc;
  const check = (name: string) => doc.checks.find((c) => c.name === name);
  return { ...r, doc, check, names: doc.checks.map((c) => c.name) };
}

/** An https server on 127.0.0.1 with `cert`, answering 404 to everything. */
async function tlsServer(cert: SelfSignedCert): Promise<{ base: string; close(): Promise<void> }> {
  const server: HttpsServer = createHttpsServer({ key: cert.key, cert: cert.cert }, (_q, res) =>
    res.writeHead(404).end(),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
let server: { base: string; close(): Promise<void> };
beforeAll(async () => {
  if (!cert) throw new Error("openssl is needed for the TLS tests");
  server = await tlsServer(cert);
});
afterAll(async () => {
  await server?.close();
});

describe("doctor: network to the API origin", () => {
  it("a loopback http service: proxy none, dns, tcp with its time, tls not used; in order", async () => {
    const r = await doctor([], shared.env());
    expect(r.code).toBe(0);
    const port = new URL(shared.mock.baseUrl).port;
    expect(r.names.slice(0, 6)).toEqual(["node", "config", "base-url", "proxy", "dns", "tcp"]);
    expect(r.check("proxy")).toMatchObject({ status: "ok", finding: "none: requests go direct" });
    expect(r.check("dns")?.finding).toBe("127.0.0.1 is an address");
    expect(r.check("tcp")?.finding).toMatch(
      new RegExp(`^the service at 127\\.0\\.0\\.1:${port} in \\d+ ms$`),
    );
    expect(r.check("tls")?.finding).toMatch(/^not used: plain http:\/\//);
    const human = await runCli(["doctor"], { env: { ...NO_PROXY_ENV, ...shared.env() } });
    expect(human.stdout).toMatch(/^ok tcp: the service at /m);
  });

  it("a host name is resolved as connections resolve it (localhost)", async () => {
    const port = new URL(shared.mock.baseUrl).port;
    const r = await doctor([], { ...shared.env(), SVC_BASE_URL: `http://localhost:${port}` });
    expect(r.check("dns")?.finding).toMatch(/^localhost → .*(127\.0\.0\.1|::1)/);
  });

  it("a name that does not resolve fails dns with where the base URL is set; nothing after it runs", async () => {
    const r = await doctor([], {
      ...shared.env(),
      SVC_BASE_URL: "https://no-such-host.invalid",
    });
    expect(r.code).toBe(1);
    expect(r.check("dns")).toMatchObject({ status: "fail" });
    expect(r.check("dns")?.finding).toMatch(/no-such-host\.invalid does not resolve.*dns_error/);
    expect(r.check("dns")?.hint).toMatch(/SVC_BASE_URL.*--proxy/);
    expect(r.check("dns")?.hint).toBe(
      renderHint(
        "dns_error",
        { ...NO_COMMAND, exists: () => true, has: () => true },
        {
          source: "SVC_BASE_URL",
        },
      ),
    );
    expect(r.names).not.toContain("tcp");
    expect(r.names).not.toContain("tls");
    expect(r.names).not.toContain("key-accepted");
    expect(r.check("api-key")?.status).toBe("ok");
  });

  it("a port where nothing listens fails tcp: refused, with the base URL's source", async () => {
    const port = await closedPort();
    const r = await doctor(["--base-url", `http://127.0.0.1:${port}`], shared.env());
    expect(r.code).toBe(1);
    expect(r.check("tcp")?.status).toBe("fail");
    expect(r.check("tcp")?.finding).toBe(
      `127.0.0.1:${port} (the service) refused the connection [network_error]`,
    );
    expect(r.check("tcp")?.hint).toMatch(/--base-url.*running/);
  });

  it("an untrusted certificate fails tls naming it, the CA list and --ca-file; trusted, it is described", async () => {
    const env = { ...shared.env(), SVC_BASE_URL: server.base };
    const r = await doctor([], env);
    expect(r.code).toBe(1);
    const tls = r.check("tls");
    expect(tls?.status).toBe("fail");
    expect(tls?.finding).toMatch(
      /^TLSv1\.[23], certificate CN=svc-dl test issued by CN=svc-dl test: not trusted by Node's bundled CA list.*\(DEPTH_ZERO_SELF_SIGNED_CERT\) \[tls_error\]$/,
    );
    expect(tls?.hint).toMatch(/--ca-file/);
    // the same row of the error table as a command that fails on that certificate
    const whoami = await runCli(["--json", "whoami"], { env: { ...NO_PROXY_ENV, ...env } });
    const { error } = JSON.parse(whoami.stderr.trim().split("\n").at(-1) ?? "{}") as {
      error: { code: string; hint: string };
    };
    expect(error.code).toBe("tls_error");
    expect(tls?.hint).toBe(error.hint);

    const ok = await doctor(["--ca-file", cert?.caFile ?? ""], env);
    // the test certificate lives two days: valid, but close to its expiry
    expect(ok.check("tls")).toMatchObject({ status: "warn" });
    expect(ok.check("tls")?.finding).toMatch(
      /^TLSv1\.[23], certificate CN=svc-dl test issued by CN=svc-dl test, expires \d{4}-\d\d-\d\d \([01] days?\); CA: Node's bundled CA list.* \+ .*cert\.pem \(from --ca-file\)$/,
    );
    expect(ok.check("tls")?.hint).toMatch(/expires in [01] days?/);
    const viaEnv = await doctor([], { ...env, SVC_CA_FILE: cert?.caFile });
    expect(viaEnv.check("tls")?.finding).toMatch(/cert\.pem \(from SVC_CA_FILE\)$/);
  });

  it("a certificate for another name fails tls: not issued for the host", async () => {
    const other = makeSelfSignedCert(["DNS:elsewhere.test"]);
    if (!other) throw new Error("openssl is needed");
    const s = await tlsServer(other);
    try {
      const r = await doctor(["--ca-file", other.caFile], {
        ...shared.env(),
        SVC_BASE_URL: s.base,
      });
      expect(r.check("tls")?.status).toBe("fail");
      expect(r.check("tls")?.finding).toMatch(/it is not issued for 127\.0\.0\.1 .*\[tls_error\]/);
      expect(r.check("tls")?.hint).toMatch(/host of the base URL \(from SVC_BASE_URL\)/);
    } finally {
      await s.close();
    }
  });

  it("https:// on a plain-http port fails tls as not_tls, naming the base URL's scheme and port", async () => {
    const port = new URL(shared.mock.baseUrl).port;
    const r = await doctor([], { ...shared.env(), SVC_BASE_URL: `https://127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(r.check("tcp")?.status).toBe("ok");
    expect(r.check("tls")?.status).toBe("fail");
    expect(r.check("tls")?.finding).toMatch(/does not speak TLS.*\[not_tls\]/);
    expect(r.check("tls")?.hint).toMatch(/scheme and port of the base URL .*\(from SVC_BASE_URL\)/);
  });
});

describe("doctor: the proxy in use", () => {
  it("through a proxy that wants a login: its password shown as ***, tcp to the proxy, tls through its tunnel", async () => {
    const login = Buffer.from("ops:s3cret-pass").toString("base64");
    const proxy = await startForwardProxy({ requireAuth: `Basic ${login}` });
    try {
      const proxyUrl = `http://ops:s3cret-pass@127.0.0.1:${proxy.port}`;
      const env = { ...shared.env(), SVC_BASE_URL: server.base, HTTPS_PROXY: proxyUrl };
      const r = await doctor(["--ca-file", cert?.caFile ?? ""], env);
      expect(r.stdout).not.toContain("s3cret-pass");
      expect(r.check("proxy")?.finding).toBe(
        `http://ops:***@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`,
      );
      expect(r.check("dns")?.finding).toBe("127.0.0.1 is an address (the proxy's)");
      expect(r.check("tcp")?.finding).toMatch(
        new RegExp(`^the proxy at 127\\.0\\.0\\.1:${proxy.port} in \\d+ ms$`),
      );
      expect(r.check("tls")?.finding).toMatch(/CN=svc-dl test.*; through the proxy's tunnel$/);
      expect(proxy.connects).toContain(new URL(server.base).host);
      const byName = await doctor([], {
        ...env,
        SVC_BASE_URL: `https://localhost:${new URL(server.base).port}`,
      });
      expect(byName.check("dns")?.finding).toBe(
        "127.0.0.1 is an address (the proxy's; localhost is resolved by the proxy)",
      );

      // a token as the user name alone is hidden too, in the finding and in --json
      const token = "ghp_DoctorT0kenOnly99";
      const tokenEnv = { ...env, HTTPS_PROXY: `http://${token}@127.0.0.1:${proxy.port}` };
      const withToken = await doctor([], tokenEnv);
      expect(withToken.stdout + withToken.stderr).not.toContain(token.slice(4, 14));
      expect(withToken.check("proxy")?.finding).toBe(
        `http://***@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`,
      );

      const refused = await doctor(["--proxy", `http://127.0.0.1:${proxy.port}`], env);
      expect(refused.code).toBe(1);
      expect(refused.check("proxy")?.finding).toBe(`http://127.0.0.1:${proxy.port} (from --proxy)`);
      expect(refused.check("tls")?.finding).toMatch(
        /answered HTTP 407 to CONNECT 127\.0\.0\.1:\d+: it wants a login \[proxy_error\]/,
      );
      expect(refused.check("tls")?.hint).toMatch(/user:password@host:port/);
    } finally {
      await proxy.close();
    }
  });

  it("NO_PROXY that matches the host: direct, and the proxy is not asked", async () => {
    const proxy = await startForwardProxy();
    try {
      const r = await doctor(["--ca-file", cert?.caFile ?? ""], {
        ...shared.env(),
        SVC_BASE_URL: server.base,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: "127.0.0.0/8",
      });
      expect(r.check("proxy")?.finding).toBe(
        `direct: NO_PROXY matches ${new URL(server.base).host}`,
      );
      expect(r.check("tcp")?.finding).toMatch(/^the service at /);
      expect(proxy.connects).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("an invalid proxy address fails the proxy check with how to write one", async () => {
    const r = await doctor(["--proxy", "socks5://127.0.0.1:1080"], shared.env());
    expect(r.code).toBe(1);
    expect(r.check("proxy")?.finding).toMatch(/invalid proxy address.*\[invalid_proxy\]/);
    expect(r.check("proxy")?.hint).toMatch(/http:\/\/host:port/);
    expect(r.names).not.toContain("dns");
  });
});
