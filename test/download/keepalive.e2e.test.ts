/**
 * One dispatcher per run, connections kept alive (cli-contract "Networks"): a `packs sync` of
 * many packs over https pays at most two TLS handshakes per origin, not one per file.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { startTlsFronts } from "../helpers/front-server.js";
import { makeSelfSignedCert } from "../helpers/tls.js";

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of closers) await c.close();
});

describe("keep-alive over https", () => {
  it("a sync of 20 packs makes at most 2 TLS handshakes per origin (API and CDN)", async () => {
    const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
    if (!cert) throw new Error("openssl is needed for the private CA");
    const mock = await startMockService({
      quiet: true,
      packSize: 8 * 1024,
      extraPacks: 20,
      limits: {
        download: { quota: 10_000, windowSeconds: 60 },
        read: { quota: 10_000, windowSeconds: 60 },
      },
    });
    closers.push(mock);
    registerSecret(mock.apiKey);
    const { api, cdn } = await startTlsFronts(mock, cert);
    closers.push(api, cdn);
    const dir = tempDir("svc-dl-keepalive-");
    const r = await runCli(["packs", "sync", dir, "--json"], {
      cwd: dir,
      timeoutMs: 120_000,
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: mock.apiKey, SVC_CA_FILE: cert.caFile },
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { items: { status: string }[] };
    expect(doc.items.filter((i) => i.status === "downloaded").length).toBeGreaterThanOrEqual(20);
    expect(api.tlsHandshakes()).toBeGreaterThanOrEqual(1);
    expect(api.tlsHandshakes()).toBeLessThanOrEqual(2);
    expect(cdn.tlsHandshakes()).toBeGreaterThanOrEqual(1);
    expect(cdn.tlsHandshakes()).toBeLessThanOrEqual(2);
  }, 180_000);

  it("a `pack get` lists the packs and asks for the download route on one API connection", async () => {
    const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
    if (!cert) throw new Error("openssl is needed for the private CA");
    const mock = await startMockService({ quiet: true, packSize: 4 * 1024 });
    closers.push(mock);
    registerSecret(mock.apiKey);
    const { api, cdn } = await startTlsFronts(mock, cert);
    closers.push(api, cdn);
    const dir = tempDir("svc-dl-keepalive-get-");
    const r = await runCli(["pack", "get", "desert-rocks", "-o", `${dir}/`, "--json"], {
      cwd: dir,
      timeoutMs: 60_000,
      env: { SVC_BASE_URL: api.url, SVC_API_KEY: mock.apiKey, SVC_CA_FILE: cert.caFile },
    });
    expect(r.code, r.stderr).toBe(0);
    // the listing, then at once the route: undici gives the connection back a turn later
    expect(api.paths.map((p) => p.replace(/\?.*$/, ""))).toEqual([
      "/api/v1/packs",
      "/api/v1/packs/desert-rocks/download",
    ]);
    expect(api.tlsHandshakes()).toBe(1);
    expect(cdn.tlsHandshakes()).toBe(1);
  }, 120_000);
});
