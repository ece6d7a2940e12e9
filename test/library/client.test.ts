import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, type InstallError, type ProgressEvent, SvcError } from "../../src/index.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({
  packSize: 512 * 1024,
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));
const client = () => createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });

describe("library: createClient()", () => {
  it("whoami, listPacks and listAssets return what the API returns", async () => {
    const c = client();
    const me = await c.whoami();
    expect(me.account.id).toMatch(/^usr_/);
    const packs = await c.listPacks();
    expect(packs.map((p) => p.slug)).toContain("sci-fi-props");
    const assets = await c.listAssets();
    expect(assets.map((a) => a.slug)).toContain("free-sample-cube");
  });

  it("downloadPack and downloadAsset write verified files and report progress", async () => {
    const dir = tempDir("svc-dl-lib-");
    const events: ProgressEvent[] = [];
    const doc = await client().downloadPack("sci-fi-props", {
      dir,
      onProgress: (e) => events.push({ ...e }),
    });
    const info = await shared.mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
    expect(doc).toMatchObject({
      kind: "pack",
      slug: "sci-fi-props",
      edition: "standard",
      bytes: info.size,
      sha256: info.sha256,
      etag: info.etag,
      status: "downloaded",
      resumed_from: 0,
    });
    expect(readFileSync(doc.path).length).toBe(info.size);
    expect(events.at(-1)).toEqual({ bytes: info.size, total: info.size });
    expect(events.length).toBeGreaterThan(1);
    const asset = await client().downloadAsset("free-sample-cube", { dir });
    expect(asset.kind).toBe("asset");
    expect(asset.edition).toBeNull();
    expect(existsSync(asset.path)).toBe(true);
  });

  it("throws errors carrying code, exitCode, httpStatus and requestId", async () => {
    const c = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.keys.key_revoked });
    const err = await c.whoami().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ code: "revoked_api_key", exitCode: 3, httpStatus: 401 });
    expect((err as SvcError).requestId).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    const noKey = createClient({ baseUrl: shared.mock.baseUrl });
    await expect(noKey.listPacks()).rejects.toMatchObject({ code: "no_api_key", exitCode: 3 });
    expect(() => createClient({ baseUrl: "http://example.com" })).toThrow(SvcError);
  });

  it("an AbortSignal cancels a download, keeps the partial data, and the next call resumes", async () => {
    const dir = tempDir("svc-dl-lib-abort-");
    shared.mock.set({ faults: { throttleBytesPerSecond: 256 * 1024 } });
    const controller = new AbortController();
    const err = await client()
      .downloadPack("desert-rocks", {
        dir,
        signal: controller.signal,
        onProgress: ({ bytes }) => {
          if (bytes >= 64 * 1024) controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "aborted" });
    const parts = readdirSync(join(dir, ".svc-dl")).filter((n) => n.endsWith(".part"));
    expect(parts).toHaveLength(1);
    expect(readdirSync(dir).filter((n) => n.endsWith(".zip"))).toHaveLength(0);

    shared.mock.set({ faults: {} });
    shared.mock.clearLog();
    const doc = await client().downloadPack("desert-rocks", { dir });
    expect(doc.status).toBe("resumed");
    expect(doc.resumed_from).toBeGreaterThanOrEqual(64 * 1024);
    const info = await shared.mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    expect(doc.sha256).toBe(info.sha256);
    expect(shared.mock.requests.some((r) => r.headers.range?.startsWith("bytes="))).toBe(true);
  });

  it("sync makes a directory hold every owned pack, and converges", async () => {
    const dir = tempDir("svc-dl-lib-sync-");
    const first = await client().sync(dir);
    expect(first.summary.failed).toBe(0);
    expect(first.summary.downloaded).toBeGreaterThan(0);
    shared.mock.clearLog();
    const second = await client().sync(dir);
    expect(second.summary.downloaded).toBe(0);
    expect(shared.mock.requests.filter((r) => r.origin === "cdn")).toHaveLength(0);
  });

  it("sync takes the CLI's selection, extraction and lock options", async () => {
    const dir = tempDir("svc-dl-lib-select-");
    const doc = await client().sync(dir, {
      include: ["*-forest", "sci-fi-*"],
      exclude: ["sci-fi-*"],
      extract: true,
      waitLock: 0,
    });
    expect(doc.items.map((i) => i.slug)).toEqual(["low-poly-forest"]);
    expect(doc.summary.filtered).toBeGreaterThan(0);
    const zip = doc.items[0]?.path ?? "";
    expect(existsSync(zip.replace(/\.zip$/, ""))).toBe(true);
    // a directory another run holds: `locked` at once with waitLock 0
    const { acquireDirLock } = await import("../../src/outdir/lock.js");
    const held = await acquireDirLock(dir);
    try {
      await expect(client().sync(dir, { waitLock: 0 })).rejects.toMatchObject({ code: "locked" });
    } finally {
      await held.release();
    }
  });

  it("install writes the lock; with a warm cache it needs no key and makes no request", async () => {
    const project = tempDir("svc-dl-lib-install-");
    const cacheDir = tempDir("svc-dl-lib-cache-");
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "assets", packs: ["sci-fi-props"], assets: ["free-sample-cube"] }),
    );
    const doc = await client().install({ cwd: project, cacheDir });
    expect(doc.items.map((i) => i.source)).toEqual(["network", "network"]);
    const lock = readFileSync(join(project, "svc-dl.lock"), "utf8");

    const ci = tempDir("svc-dl-lib-ci-");
    writeFileSync(join(ci, "svc-dl.json"), readFileSync(join(project, "svc-dl.json")));
    writeFileSync(join(ci, "svc-dl.lock"), lock);
    shared.mock.clearLog();
    const keyless = createClient({ baseUrl: shared.mock.baseUrl });
    const frozen = await keyless.install({ cwd: ci, cacheDir, frozen: true });
    expect(frozen.items.map((i) => i.source)).toEqual(["cache", "cache"]);
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("install --frozen drift throws lock_mismatch (exitCode 9) with the document", async () => {
    const project = tempDir("svc-dl-lib-drift-");
    writeFileSync(
      join(project, "svc-dl.json"),
      JSON.stringify({ dir: "a", packs: ["ocean-creatures"] }),
    );
    await client().install({ cwd: project });
    const ci = tempDir("svc-dl-lib-drift-ci-");
    writeFileSync(join(ci, "svc-dl.json"), readFileSync(join(project, "svc-dl.json")));
    writeFileSync(join(ci, "svc-dl.lock"), readFileSync(join(project, "svc-dl.lock")));
    shared.mock.bumpPackVersion("ocean-creatures");
    try {
      const err = (await client()
        .install({ cwd: ci, frozen: true })
        .catch((e: unknown) => e)) as InstallError;
      expect(err).toMatchObject({ code: "lock_mismatch", exitCode: 9 });
      expect(err.message).toContain("ocean-creatures");
      expect(err.document?.items[0]?.status).toBe("lock-mismatch");
      expect(readdirSync(join(ci, "a")).filter((n) => n.endsWith(".zip"))).toEqual([]);
    } finally {
      shared.mock.set({ packs: { "ocean-creatures": { version: 1 } } });
    }
  });
});
