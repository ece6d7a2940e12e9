/**
 * Interim (1xx) answers on the connections undici carries (cli-contract "Networks"; RFC 9110
 * §15.2; docs/testing.md "Interim answers"), over real loopback: a raw TCP (or TLS) relay in
 * front of the mock service writes interim answers before each of the service's answers, and a
 * real forward proxy carries the tunnelled cases. The CLI runs in-process (`main`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getMe } from "../../src/api/get-me.js";
import { HttpClient } from "../../src/http/client.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";
import { type ForwardProxy, NO_PROXY_ENV, startForwardProxy } from "../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";
import {
  byteByByte,
  type InterimBytes,
  type InterimRelay,
  startInterimRelay,
  times,
} from "./interim-relay.js";

const shared = useMockService();
const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
const HINTS = "HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n";

let cert: SelfSignedCert;
let proxy: ForwardProxy;
const relays: InterimRelay[] = [];
beforeAll(async () => {
  const made = makeSelfSignedCert(["IP:127.0.0.1"]);
  if (!made) throw new Error("openssl is needed for the TLS cases");
  cert = made;
  proxy = await startForwardProxy();
});
afterAll(async () => {
  for (const r of relays) await r.close();
  await proxy?.close();
});

async function relay(interim: InterimBytes, tls = false): Promise<InterimRelay> {
  const r = await startInterimRelay(shared.mock.baseUrl, interim, tls ? cert : undefined);
  relays.push(r);
  return r;
}

/** `whoami --json` (or without `--json`) in-process against `base` (the private CA trusted). */
function whoami(base: string, env: Record<string, string> = {}, json = true) {
  registerSecret(shared.mock.apiKey);
  return runCli(["whoami", ...(json ? ["--json"] : [])], {
    env: {
      ...NO_PROXY_ENV,
      SVC_BASE_URL: base,
      SVC_API_KEY: shared.mock.apiKey,
      SVC_CA_FILE: cert.caFile,
      ...env,
    },
  });
}

/** What `whoami --json` printed that does not change between calls (not `last_used_at`). */
function account(stdout: string): unknown {
  const me = JSON.parse(stdout) as { account: unknown; entitlements: unknown; key: { id: string } };
  return { account: me.account, entitlements: me.entitlements, key: me.key.id };
}

/** `whoami` straight to the mock: what the answers through the relays must print. */
async function expected(): Promise<unknown> {
  const r = await whoami(shared.mock.baseUrl);
  expect(r.code, r.stderr).toBe(0);
  return account(r.stdout);
}

describe("interim answers before the service's answer are skipped", () => {
  it("100 Continue, then 200: whoami succeeds with the account, one request", async () => {
    const r100 = await relay(() => [CONTINUE]);
    const r = await whoami(r100.url);
    expect(r.code, r.stderr).toBe(0);
    expect(account(r.stdout)).toEqual(await expected());
    expect(r.stdout).toContain('"name": "Demo Artist"');
    expect(r100.requests()).toBe(1);
  });

  for (const tls of [false, true]) {
    it(`100 + 103 + 100, then 200 over ${tls ? "TLS" : "plain TCP"}: succeeds, one request`, async () => {
      const mixed = await relay(() => [CONTINUE, HINTS, CONTINUE], tls);
      const r = await whoami(mixed.url);
      expect(r.code, r.stderr).toBe(0);
      expect(account(r.stdout)).toEqual(await expected());
      expect(mixed.requests()).toBe(1);
    });
  }

  it("a 100 Continue arriving byte by byte, then 200: succeeds", async () => {
    const split = await relay(() => byteByByte(`${CONTINUE}${HINTS}`));
    const r = await whoami(split.url);
    expect(r.code, r.stderr).toBe(0);
    expect(account(r.stdout)).toEqual(await expected());
  });

  it("two requests on one kept-alive connection, each after a 100 Continue", async () => {
    const each = await relay(() => [CONTINUE]);
    const http = new HttpClient({
      baseUrl: new URL(each.url),
      apiKey: () => shared.mock.apiKey,
      userAgent: "svc-dl/test",
      network: { env: {} },
    });
    try {
      const first = await getMe(http);
      // undici returns the connection to its pool once the answer has ended, a turn later
      await new Promise((resolve) => setImmediate(resolve));
      const second = await getMe(http);
      expect(first.me.account.name).toBe("Demo Artist");
      expect(second.me.account).toEqual(first.me.account);
    } finally {
      await http.close();
    }
    expect(each.requests()).toBe(2);
    expect(each.connections()).toBe(1);
  });

  it("through a proxy's CONNECT tunnel with TLS: 100 Continue skipped", async () => {
    const tunnelled = await relay(() => [CONTINUE, CONTINUE], true);
    const before = proxy.connects.length;
    const r = await whoami(tunnelled.url, { HTTPS_PROXY: proxy.url });
    expect(r.code, r.stderr).toBe(0);
    expect(account(r.stdout)).toEqual(await expected());
    expect(proxy.connects.slice(before)).toEqual([new URL(tunnelled.url).host]);
  });
});

describe("what is not skipped", () => {
  it("9 interim answers (one more than the cap): exit 7 bad_framing at once, not retried", async () => {
    const flood = await relay(() => [...times(5, CONTINUE), ...times(4, HINTS)]);
    const r = await whoami(flood.url, {}, false);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("code bad_framing");
    expect(r.stderr).toContain("more than 8 interim (1xx) answers");
    expect(r.stderr).not.toMatch(/retry \d\/\d/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(flood.requests()).toBe(1);
  });

  it("8 interim answers (the cap) are skipped", async () => {
    const eight = await relay(() => [...times(4, CONTINUE), ...times(4, HINTS)]);
    const r = await whoami(eight.url);
    expect(r.code, r.stderr).toBe(0);
    expect(eight.requests()).toBe(1);
  });

  it("a 101 Switching Protocols is not an interim answer to skip: exit 7, as before", async () => {
    const upgrade = await relay(() => [
      "HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n",
    ]);
    const r = await whoami(upgrade.url);
    expect(r.code).toBe(7);
    expect(r.stdout).not.toContain("Demo Artist");
  });
});
