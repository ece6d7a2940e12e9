/**
 * One TLS SecureContext per run (cli-contract "Networks"; docs/performance.md "TLS contexts"):
 * with a CA file, every connection (undici's to the API, the body fast path's to the CDN,
 * doctor's probes) shares one context instead of parsing Node's ~145 roots again, and a run
 * that speaks only plain http never loads `node:tls` for it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { type FrontServer, startTlsFronts } from "../helpers/front-server.js";
import { NO_PROXY_ENV } from "../helpers/proxy.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../helpers/tls.js";

let mock: MockService;
let cert: SelfSignedCert;
let api: FrontServer;
let cdn: FrontServer;
let dir: string;

beforeAll(async () => {
  const made = makeSelfSignedCert(["IP:127.0.0.1"]);
  if (!made) throw new Error("openssl is needed for the private CA");
  cert = made;
  mock = await startMockService({ quiet: true, packSize: 4 * 1024, extraPacks: 4 });
  registerSecret(mock.apiKey);
  ({ api, cdn } = await startTlsFronts(mock, cert));
  dir = mkdtempSync(join(tmpdir(), "svc-dl-tlsctx-"));
});

afterAll(async () => {
  await api?.close();
  await cdn?.close();
  await mock?.close();
});

/**
 * A CA file trusting the fronts, with content of its own (another unrelated certificate
 * appended): contexts are shared per distinct CA list in the process, so each test starts
 * from one that no earlier run built.
 */
function freshCaFile(): string {
  const other = makeSelfSignedCert(["DNS:other.example"]);
  if (!other) throw new Error("openssl is needed");
  const file = join(dir, `ca-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, `${cert.cert}\n${other.cert}`);
  return file;
}

/** Counts the SecureContexts made during `run`, by svc-dl or by Node's tls.connect for it. */
async function contextsMadeBy<T>(run: () => Promise<T>): Promise<{ result: T; made: number }> {
  const spy = vi.spyOn(tls, "createSecureContext");
  try {
    const result = await run();
    return { result, made: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe("one TLS SecureContext per run", () => {
  it("a sync of several packs over https with --ca-file builds exactly one, for API and CDN alike", async () => {
    const out = tempDir("svc-dl-tlsctx-sync-");
    const apiBefore = api.tlsHandshakes();
    const cdnBefore = cdn.tlsHandshakes();
    const { result: r, made } = await contextsMadeBy(() =>
      runCli(["packs", "sync", out, "--json", "--ca-file", freshCaFile()], {
        cwd: out,
        timeoutMs: 120_000,
        env: { ...NO_PROXY_ENV, SVC_BASE_URL: api.url, SVC_API_KEY: mock.apiKey },
      }),
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { items: { status: string }[] };
    expect(doc.items.filter((i) => i.status === "downloaded").length).toBeGreaterThanOrEqual(4);
    // several TLS connections (API and CDN), one context between them
    expect(api.tlsHandshakes() - apiBefore).toBeGreaterThanOrEqual(1);
    expect(cdn.tlsHandshakes() - cdnBefore).toBeGreaterThanOrEqual(1);
    expect(made).toBe(1);
  }, 180_000);

  it("doctor's TLS probe and its key check share it", async () => {
    const { result: r, made } = await contextsMadeBy(() =>
      runCli(["doctor", "--json", "--ca-file", freshCaFile()], {
        cwd: tempDir("svc-dl-tlsctx-doctor-"),
        env: { ...NO_PROXY_ENV, SVC_BASE_URL: api.url, SVC_API_KEY: mock.apiKey },
      }),
    );
    const doc = JSON.parse(r.stdout) as { checks: { name: string; status: string }[] };
    const status = (name: string) => doc.checks.find((c) => c.name === name)?.status;
    expect(status("tls"), r.stdout).not.toBe("fail"); // warns: the test certificate expires soon
    expect(status("key-accepted"), r.stdout).toBe("ok");
    expect(made).toBe(1);
  });
});
