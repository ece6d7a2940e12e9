import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { runCli } from "../../helpers/cli.js";
import { sha256Of, tempDir } from "../../helpers/download.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 128 * 1024, assetSize: 32 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
  mock.clearLog();
});

function base(): Record<string, string> {
  return { SVC_BASE_URL: mock.baseUrl };
}

describe("legacy get", () => {
  it("downloads a pack with the license key from SVC_LICENSE_KEY, never sending an API key", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const r = await runCli(["legacy", "get", "--pack", "low-poly-forest", "--json"], {
      env: { ...base(), SVC_LICENSE_KEY: mock.licenseKey },
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: "pack",
      slug: "low-poly-forest",
      edition: "standard",
      sha256: info.sha256,
      status: "downloaded",
    });
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
    const post = mock.requests.find((q) => q.method === "POST");
    expect(post?.url).toBe("/api/download");
    expect(post?.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(post?.body ?? "{}")).toEqual({
      licenseKey: mock.licenseKey,
      packSlug: "low-poly-forest",
    });
    expect(mock.requests.every((q) => q.headers.authorization === undefined)).toBe(true);
    expect(mock.requests.every((q) => q.headers["x-api-key"] === undefined)).toBe(true);
    // the redirect target is fetched with GET and no body: the license key is not re-sent
    const cdn = mock.requests.filter((q) => q.origin === "cdn");
    expect(cdn.length).toBeGreaterThan(0);
    expect(cdn.every((q) => q.method === "GET" && !q.body)).toBe(true);
  });

  it("reads the license key from stdin with --license-key-stdin and downloads an asset", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "asset", slug: "forest-pine-tree" });
    const r = await runCli(
      ["legacy", "get", "--asset", "forest-pine-tree", "--license-key-stdin", "--json"],
      { env: base(), cwd: dir, input: `${mock.licenseKey}\n` },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: "asset",
      edition: null,
      sha256: info.sha256,
    });
    const post = mock.requests.find((q) => q.method === "POST");
    expect(JSON.parse(post?.body ?? "{}")).toEqual({
      licenseKey: mock.licenseKey,
      assetSlug: "forest-pine-tree",
    });
  });

  it("sends edition authoring only with --edition authoring", async () => {
    const dir = tempDir();
    const r = await runCli(
      ["legacy", "get", "--pack", "low-poly-forest", "--edition", "authoring", "-o", "a.zip"],
      { env: { ...base(), SVC_LICENSE_KEY: mock.licenseKey }, cwd: dir },
    );
    expect(r.code).toBe(0);
    const post = mock.requests.find((q) => q.method === "POST");
    expect(JSON.parse(post?.body ?? "{}").edition).toBe("authoring");
    expect(readdirSync(dir)).toContain("a.zip");
  });

  it("a denial prints HTTP status, error code and request id, never the key", async () => {
    const unpaid = mock.licenseKeys.lic_unpaid ?? "";
    expect(unpaid).toMatch(/^SVC_/);
    const dir = tempDir();
    const r = await runCli(["legacy", "get", "--pack", "medieval-village", "--verbose"], {
      env: { ...base(), SVC_LICENSE_KEY: unpaid },
      cwd: dir,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("403");
    expect(r.stderr).toMatch(/code [a-z_]+/);
    expect(r.stderr).toMatch(/request id \S+/);
    expect(r.stderr).not.toContain(unpaid);
    expect(readdirSync(dir).filter((f) => f !== ".svc-dl")).toEqual([]);
  });

  it("an unknown license key fails with its code and without echoing the key", async () => {
    const key = "SVC_DEAD-BEEF-DEAD-BEEF";
    const r = await runCli(["legacy", "get", "--pack", "low-poly-forest", "--json"], {
      env: { ...base(), SVC_LICENSE_KEY: key },
      cwd: tempDir(),
    });
    expect(r.code).not.toBe(0);
    const doc = JSON.parse(r.stderr);
    expect(doc.error.http_status).toBe(401);
    expect(doc.error.request_id).toBeTruthy();
    expect(r.stderr).not.toContain(key);
  });

  it.each([
    [["legacy", "get"]],
    [["legacy", "get", "--pack", "a", "--asset", "b"]],
    [["legacy", "get", "--asset", "forest-pine-tree", "--edition", "authoring"]],
    [["legacy", "get", "--pack", ".."]],
  ])("usage errors exit 2 without a request: %j", async (args) => {
    const r = await runCli(args, {
      env: { ...base(), SVC_LICENSE_KEY: mock.licenseKey },
      cwd: tempDir(),
    });
    expect(r.code).toBe(2);
    expect(mock.requests.length).toBe(0);
  });

  it("without a key and without a TTY it exits 2 naming the ways to give one", async () => {
    const r = await runCli(["legacy", "get", "--pack", "low-poly-forest"], {
      env: base(),
      cwd: tempDir(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("SVC_LICENSE_KEY");
    expect(r.stderr).toContain("--license-key-stdin");
    expect(mock.requests.length).toBe(0);
  });

  it("refuses an API key given as the license key (exit 2)", async () => {
    const r = await runCli(["legacy", "get", "--pack", "low-poly-forest", "--license-key-stdin"], {
      env: base(),
      cwd: tempDir(),
      input: mock.apiKey,
    });
    expect(r.code).toBe(2);
    expect(mock.requests.length).toBe(0);
  });
});
