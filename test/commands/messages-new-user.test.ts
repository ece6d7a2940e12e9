import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { type FrontServer, startFrontServer } from "../helpers/front-server.js";
import { useMockService } from "../helpers/mock.js";

// Messages a new user met that said something untrue (a request id that is not printed, a
// preview without its `…`, a rate of `?`), each read as the user sees it.

const shared = useMockService();
const tempDir = () => mkdtempSync(join(tmpdir(), "svc-dl-newuser-"));
const fronts: FrontServer[] = [];
afterEach(async () => {
  for (const f of fronts.splice(0)) await f.close();
});

interface JsonError {
  error: { code: string; message: string; hint: string | null; request_id: string | null };
}
const lastJsonError = (stderr: string): JsonError =>
  JSON.parse(stderr.trim().split("\n").at(-1) ?? "") as JsonError;

describe("a refused clear-text download link", () => {
  it("from the pack's record: no request id to quote, and the hint asks for none", async () => {
    const front = await startFrontServer(
      shared.mock.baseUrl,
      () => false,
      (path, body) => {
        if (!path.startsWith("/api/v1/packs")) return body;
        const b = body as { data?: { downloads?: { bundle?: string } }[] };
        for (const p of b.data ?? [])
          if (p.downloads) p.downloads.bundle = "http://cdn.example/x.zip";
        return b;
      },
    );
    fronts.push(front);
    const env = { SVC_BASE_URL: front.url, SVC_API_KEY: shared.mock.apiKey };
    const r = await runCli(["--json", "pack", "get", "low-poly-forest", "-o", `${tempDir()}/`], {
      env,
    });
    expect(r.code).toBe(7);
    const { error } = lastJsonError(r.stderr);
    expect(error.code).toBe("insecure_url");
    expect(error.request_id).toBeNull();
    expect(error.hint).not.toMatch(/request id/);
    expect(error.hint).toMatch(/naming the item and the address/);
    const human = await runCli(["pack", "get", "low-poly-forest", "-o", `${tempDir()}/`], { env });
    expect(human.stderr).not.toMatch(/request id/);
  });

  it("from a redirect: the request id is printed, and the hint asks for it", async () => {
    const front = await startFrontServer(shared.mock.baseUrl, (req, res) => {
      if (!req.url?.includes("/download")) return false;
      res
        .writeHead(302, { location: "http://cdn.example/x.glb", "x-request-id": "req_redirect01" })
        .end();
      return true;
    });
    fronts.push(front);
    const r = await runCli(["asset", "get", "free-sample-cube", "-o", `${tempDir()}/`], {
      env: { SVC_BASE_URL: front.url, SVC_API_KEY: shared.mock.apiKey },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("insecure_url");
    expect(r.stderr).toContain("req_redirect01");
    expect(r.stderr).toMatch(/hint: .*redirected the download .*with the request id/);
  });
});

describe("not_entitled says what is really wrong", () => {
  const UNPAID = { orders: { ord_1002: { paid: false } } };
  afterEach(() => shared.mock.set({ orders: { ord_1002: { paid: true } } }));

  it("a pack `packs list` lists, bought with an unpaid order: the order, not `packs list`", async () => {
    shared.mock.set(UNPAID);
    const list = await runCli(["packs", "list"], { env: shared.env() });
    expect(list.stdout).toContain("medieval-village");
    const r = await runCli(["--json", "pack", "get", "medieval-village", "-o", `${tempDir()}/`], {
      env: shared.env(),
    });
    expect(r.code).toBe(4);
    const { error } = lastJsonError(r.stderr);
    expect(error.code).toBe("not_entitled");
    expect(error.hint).toMatch(/^`svc-dl packs list` lists this pack, .*not paid/);
    expect(error.hint).toContain("`svc-dl api orders`");
    expect(error.message).toContain("medieval-village");
    expect(error.hint).not.toContain("shows the packs you own");
    const orders = await runCli(["api", "orders"], { env: shared.env() });
    expect(orders.code).toBe(0);
    expect(orders.stdout).toMatch(/"paid": ?false/);
  });

  it("packs sync: the failed item's hint names the unpaid order", async () => {
    shared.mock.set(UNPAID);
    const r = await runCli(
      ["--json", "packs", "sync", tempDir(), "--include", "medieval-village"],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { items: { error: { code: string; hint: string } }[] };
    expect(doc.items[0]?.error.code).toBe("not_entitled");
    expect(doc.items[0]?.error.hint).toMatch(/lists this pack, .*not paid/);
  });

  it("a pack not bought: not among the purchases, `packs list` shows the packs owned", async () => {
    const r = await runCli(["--json", "pack", "get", "space-station", "-o", `${tempDir()}/`], {
      env: shared.env(),
    });
    expect(r.code).toBe(4);
    const { error } = lastJsonError(r.stderr);
    expect(error.code).toBe("not_entitled");
    expect(error.hint).toMatch(
      /^This pack is not among the account's purchases; `svc-dl packs list`/,
    );
  });

  it("legacy get with a license key of another order: the key, not the account's packs", async () => {
    const r = await runCli(
      ["--json", "legacy", "get", "--pack", "medieval-village", "-o", `${tempDir()}/`],
      { env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_LICENSE_KEY: shared.mock.licenseKey } },
    );
    expect(r.code).toBe(4);
    const { error } = lastJsonError(r.stderr);
    expect(error.code).toBe("not_entitled");
    expect(error.hint).toMatch(/^This license key does not cover this item/);
    expect(error.hint).not.toContain("packs list");
  });
});

describe("a sync stopped part-way", () => {
  /** A run whose first retry wait interrupts it, as Ctrl-C or SIGTERM would, mid-download. */
  async function stoppedSync(args: string[]) {
    let stop = () => {};
    const waits = {
      now: () => Date.now(),
      sleep: async (_ms: number, signal?: AbortSignal) => {
        stop();
        if (signal?.aborted) throw signal.reason;
      },
    };
    shared.mock.set({ faults: { serverError: { count: 100, origin: "cdn" } } });
    return runCli(["packs", "sync", tempDir(), ...args], {
      env: shared.env(),
      waits,
      onStart: (interrupt) => {
        stop = interrupt;
      },
    });
  }

  it("counts the pack files done, the one stopped and those not started", async () => {
    const r = await stoppedSync([]);
    expect(r.code).toBe(130);
    const planned = Number(/(\d+) pack files \(edition standard\) to keep/.exec(r.stderr)?.[1]);
    expect(planned).toBeGreaterThan(2);
    expect(r.stderr).toContain(
      `: ${planned} pack files, 0 downloaded, 0 up to date, 0 failed, 1 stopped part-way (partial data kept), ${planned - 1} not started`,
    );
  });

  it("--json: the summary counts the pack files not started", async () => {
    const r = await stoppedSync(["--json"]);
    expect(r.code).toBe(130);
    const doc = JSON.parse(r.stdout) as { complete: boolean; summary: { not_started?: number } };
    expect(doc.complete).toBe(false);
    expect(doc.summary.not_started).toBeGreaterThan(1);
  });
});

describe("auth status", () => {
  it("--json shows the key preview ending in …, as the human output does", async () => {
    const r = await runCli(["--json", "auth", "status"], { env: shared.env() });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { key: { preview: string } };
    expect(doc.key.preview).toMatch(/^svc_live_.+…$/);
    const human = await runCli(["auth", "status"], { env: shared.env() });
    expect(human.stdout).toContain(`(${doc.key.preview})`);
  });
});

describe("the line of a resumed download", () => {
  it("never prints a rate of `?`", async () => {
    const dir = tempDir();
    shared.mock.set({ faults: { dropAfterBytes: { bytes: 600, count: 100 } } });
    const cut = await runCli(["asset", "get", "free-sample-cube", "-o", `${dir}/`], {
      env: shared.env(),
    });
    expect(cut.code).toBe(7);
    shared.mock.set({ faults: {} });
    const r = await runCli(["asset", "get", "free-sample-cube", "-o", `${dir}/`], {
      env: shared.env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/free-sample-cube\.glb .* in .*resumed from/);
    expect(r.stderr).not.toContain("?");
  });
});
