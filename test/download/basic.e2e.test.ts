import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";
import { cdnRequests, ESC, envFor, sha256Of, tempDir } from "../helpers/download.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 256 * 1024, assetSize: 64 * 1024 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {}, ifNoneMatch: true });
  mock.clearLog();
});

describe("pack get", () => {
  it("downloads a fresh pack byte-identical to the served file, records it, prints plain lines", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const r = await runCli(["pack", "get", "low-poly-forest"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(0);
    const path = join(dir, info.filename);
    expect(r.stdout.trim()).toBe(path);
    expect(sha256Of(path)).toBe(info.sha256);
    const state = JSON.parse(readFileSync(join(dir, ".svc-dl", "state.json"), "utf8"));
    expect(state.items[info.filename]).toMatchObject({
      kind: "pack",
      slug: "low-poly-forest",
      edition: "standard",
      size: info.size,
      etag: info.etag,
      sha256: info.sha256,
    });
    // no partial data left behind, and no escape sequences without a TTY
    expect(readdirSync(join(dir, ".svc-dl")).filter((f) => f.endsWith(".part"))).toEqual([]);
    expect(r.stderr).not.toContain(ESC);
    expect(r.stderr).toContain(info.filename);
    expect(r.stderr).toMatch(/256\.0 KiB in .*\/s\)/);
    // the API key went only to the service origin
    expect(cdnRequests(mock).every((q) => q.headers.authorization === undefined)).toBe(true);
  });

  it("prints the contract's --json document", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({
      kind: "pack",
      slug: "low-poly-forest",
      edition: "authoring",
    });
    const r = await runCli(["pack", "get", "low-poly-forest", "--edition", "authoring", "--json"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      kind: "pack",
      slug: "low-poly-forest",
      edition: "authoring",
      path: join(dir, info.filename),
      bytes: info.size,
      sha256: info.sha256,
      etag: info.etag,
      status: "downloaded",
      resumed_from: 0,
    });
    expect(r.stderr).toBe("");
    // the URL came from the pack record (downloads.authoring)
    const dl = mock.requests.find((q) => q.origin === "api" && q.url.includes("/download"));
    expect(dl?.url).toContain("edition=authoring");
  });

  it("re-validates a recorded file: 304 → up to date, no body", async () => {
    const dir = tempDir();
    await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
    mock.clearLog();
    const r = await runCli(["pack", "get", "sci-fi-props", "--json"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe("up-to-date");
    const cdn = cdnRequests(mock);
    expect(cdn.length).toBe(1);
    expect(cdn[0]?.headers["if-none-match"]).toBeTruthy();
    expect(cdn[0]?.status).toBe(304);
  });

  it("re-validates with If-None-Match ignored: 200 with the same ETag stops reading at once", async () => {
    const dir = tempDir();
    mock.set({ packSize: 8 * 1024 * 1024 });
    try {
      await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
      mock.set({ ifNoneMatch: false, faults: { throttleBytesPerSecond: 4 * 1024 * 1024 } });
      mock.clearLog();
      const r = await runCli(["pack", "get", "sci-fi-props"], { env: envFor(mock), cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("already up to date");
      await mock.settled();
      const cdn = cdnRequests(mock);
      expect(cdn.length).toBe(1);
      expect(cdn[0]?.status).toBe(200);
      expect(cdn[0]?.bytesSent ?? 0).toBeLessThan(8 * 1024 * 1024);
    } finally {
      mock.set({ packSize: 256 * 1024 });
    }
  });

  it("refuses to overwrite a file it did not download (file_exists, exit 8) unless --force", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "pack", slug: "medieval-village" });
    writeFileSync(join(dir, info.filename), "mine");
    const r = await runCli(["pack", "get", "medieval-village"], { env: envFor(mock), cwd: dir });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("file_exists");
    expect(readFileSync(join(dir, info.filename), "utf8")).toBe("mine");
    const forced = await runCli(["pack", "get", "medieval-village", "--force"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(forced.code).toBe(0);
    expect(sha256Of(join(dir, info.filename))).toBe(info.sha256);
  });

  it("-o FILE names the file exactly; -o DIR/ creates the directory and uses the server's name", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "pack", slug: "low-poly-forest" });
    const a = await runCli(["pack", "get", "low-poly-forest", "-o", "custom.zip"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(a.code).toBe(0);
    expect(sha256Of(join(dir, "custom.zip"))).toBe(info.sha256);
    const b = await runCli(["pack", "get", "low-poly-forest", "-o", "sub/dir/"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(b.code).toBe(0);
    expect(sha256Of(join(dir, "sub", "dir", info.filename))).toBe(info.sha256);
    expect(existsSync(join(dir, "sub", "dir", ".svc-dl", "state.json"))).toBe(true);
  });

  it("-o - writes the bytes to stdout and nothing to disk", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "asset", slug: "forest-pine-tree" });
    const out = await runCli(["asset", "get", "forest-pine-tree", "-o", "-"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(out.code).toBe(0);
    expect(createHash("sha256").update(out.stdoutBytes).digest("hex")).toBe(info.sha256);
    expect(out.stderr).toContain("forest-pine-tree.glb");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("-o - with --json is a usage error", async () => {
    const r = await runCli(["asset", "get", "forest-pine-tree", "-o", "-", "--json"], {
      env: envFor(mock),
      cwd: tempDir(),
    });
    expect(r.code).toBe(2);
  });

  it("shows the service's own error for a pack that is not owned", async () => {
    const r = await runCli(["pack", "get", "no-such-pack"], { env: envFor(mock), cwd: tempDir() });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("not_found");
    expect(r.stderr).toMatch(/request id \S+/);
    const dl = mock.requests.find((q) => q.url.startsWith("/api/v1/packs/no-such-pack/download"));
    expect(dl).toBeDefined();
  });

  it.each([[""], ["."], [".."], ["a/b"], ["x\u0007y"]])(
    "refuses slug %j with exit 2",
    async (slug) => {
      const r = await runCli(["pack", "get", slug], { env: envFor(mock), cwd: tempDir() });
      expect(r.code).toBe(2);
      expect(mock.requests.length).toBe(0);
    },
  );

  it("percent-encodes slugs in the path", async () => {
    const r = await runCli(["asset", "get", "weird slug?#"], { env: envFor(mock), cwd: tempDir() });
    expect(r.code).toBe(5);
    const dl = mock.requests.find((q) => q.url.includes("/assets/"));
    expect(dl?.url).toBe("/api/v1/assets/weird%20slug%3F%23/download");
  });
});

describe("asset get", () => {
  it("downloads a GLB and re-validates it", async () => {
    const dir = tempDir();
    const info = await mock.fileInfo({ kind: "asset", slug: "village-lamp-post" });
    const r = await runCli(["asset", "get", "village-lamp-post", "--json"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      kind: "asset",
      edition: null,
      sha256: info.sha256,
    });
    const again = await runCli(["asset", "get", "village-lamp-post", "--json"], {
      env: envFor(mock),
      cwd: dir,
    });
    expect(JSON.parse(again.stdout).status).toBe("up-to-date");
  });
});
