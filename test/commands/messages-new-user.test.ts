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
