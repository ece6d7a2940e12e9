import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  cachedFiles,
  downloadRequests,
  type InstallDoc,
  install,
  makeProject,
} from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({
  packSize: 96 * 1024,
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

describe("svc-dl install: the cache", () => {
  it("a fresh dir plus a warm cache makes zero requests and needs no key", async () => {
    const p = makeProject();
    expect((await install(shared.mock, p)).code).toBe(0);
    expect(cachedFiles(p.cache)).toHaveLength(3);
    expect(statSync(p.cache).mode & 0o777).toBe(0o700);

    // A CI job: the repository (manifest + lock) checked out fresh, the cache restored.
    const ci = makeProject();
    cpSync(join(p.root, "svc-dl.lock"), join(ci.root, "svc-dl.lock"));
    shared.mock.clearLog();
    const r = await install(shared.mock, { root: ci.root, cache: p.cache }, ["--frozen"], {
      SVC_API_KEY: undefined,
      SVC_BASE_URL: undefined,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(shared.mock.requests).toHaveLength(0);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items.map((i) => i.source)).toEqual(["cache", "cache", "cache"]);
    for (const item of doc.items) {
      const path = item.path ?? "";
      expect(lstatSync(path).isFile()).toBe(true);
      expect(readFileSync(path)).toEqual(
        readFileSync(join(p.root, "vendor/assets", path.split("/").pop() ?? "")),
      );
    }
    // `svc-dl verify` accepts what install put there
    const v = await runCli(["verify", join(ci.root, "vendor/assets")]);
    expect(v.code, v.stderr).toBe(0);
  });

  it("asks for the key only when an item must be downloaded (exit 3 without one)", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p, ["--no-cache"])).code).toBe(0);
    rmSync(join(p.root, "out"), { recursive: true });
    shared.mock.clearLog();
    const r = await install(shared.mock, p, ["--frozen"], { SVC_API_KEY: undefined });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no_api_key");
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("re-verifies a cache entry when reading it: a damaged entry is refetched", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const [entry] = cachedFiles(p.cache);
    writeFileSync(entry ?? "", Buffer.alloc(16 * 1024, 1)); // same size, other bytes
    const ci = makeProject();
    cpSync(join(p.root, "svc-dl.json"), join(ci.root, "svc-dl.json"));
    cpSync(join(p.root, "svc-dl.lock"), join(ci.root, "svc-dl.lock"));
    shared.mock.clearLog();
    const r = await install(shared.mock, { root: ci.root, cache: p.cache }, ["--frozen"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]?.source).toBe("network");
    expect(downloadRequests(shared.mock).length).toBeGreaterThan(0);
    const info = await shared.mock.fileInfo({ kind: "asset", slug: "free-sample-cube" });
    expect(doc.items[0]?.sha256).toBe(info.sha256);
    // the entry is whole again
    expect(cachedFiles(p.cache)).toHaveLength(1);
  });

  it("--no-cache neither reads nor fills the cache", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    const r = await install(shared.mock, p, ["--no-cache"]);
    expect(r.code, r.stderr).toBe(0);
    expect(cachedFiles(p.cache)).toHaveLength(0);
  });

  it("a foreign cache dir: doctor's hint step, install --no-cache, works", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    writeFileSync(join(p.cache, "notes.txt"), "mine");
    const refused = await install(shared.mock, p);
    expect(refused.code).toBe(8);
    expect(refused.stdout + refused.stderr).toContain("foreign_cache_dir");
    const doctor = await runCli(["doctor"], {
      cwd: p.root,
      env: {
        SVC_BASE_URL: shared.mock.baseUrl,
        SVC_API_KEY: shared.mock.apiKey,
        SVC_DL_CACHE_DIR: p.cache,
      },
    });
    expect(doctor.stdout).toMatch(/hint: .*run install with --no-cache/);
    const r = await install(shared.mock, p, ["--no-cache"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(p.cache, "notes.txt"), "utf8")).toBe("mine");
  });

  it("two concurrent installs sharing one cache both end correct", async () => {
    const a = makeProject();
    const b = makeProject();
    const [ra, rb] = await Promise.all([
      install(shared.mock, a),
      install(shared.mock, { root: b.root, cache: a.cache }),
    ]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    const lockA = readFileSync(join(a.root, "svc-dl.lock"), "utf8");
    expect(readFileSync(join(b.root, "svc-dl.lock"), "utf8")).toBe(lockA);
    const files = cachedFiles(a.cache);
    expect(files).toHaveLength(3);
    for (const f of files) {
      const { createHash } = await import("node:crypto");
      expect(createHash("sha256").update(readFileSync(f)).digest("hex")).toBe(f.split("/").pop());
    }
    expect(readdirSync(join(a.cache, "tmp"))).toEqual([]);
  });

  it("`cache dir` prints SVC_DL_CACHE_DIR and `cache clean` empties it", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const dir = await runCli(["cache", "dir"], { env: { SVC_DL_CACHE_DIR: p.cache } });
    expect(dir.code).toBe(0);
    expect(dir.stdout.trim()).toBe(p.cache);
    const clean = await runCli(["cache", "clean", "--json"], {
      env: { SVC_DL_CACHE_DIR: p.cache },
    });
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ dir: p.cache, removed: 1 });
    expect(readdirSync(p.cache)).toEqual(["CACHEDIR.TAG"]); // the tag stays: still svc-dl's
  });

  it("`cache dir` defaults to $XDG_CACHE_HOME/svc-dl on Linux", async () => {
    const r = await runCli(["cache", "dir"], { env: { XDG_CACHE_HOME: "/tmp/xdg-test-cache" } });
    expect(r.stdout.trim()).toBe(
      process.platform === "linux" ? "/tmp/xdg-test-cache/svc-dl" : r.stdout.trim(),
    );
  });

  it("refuses a cache directory that is a symlink (exit 8)", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    const link = join(p.root, "cache-link");
    mkdirSync(join(p.root, "real-cache"), { mode: 0o700 });
    symlinkSync(join(p.root, "real-cache"), link);
    const r = await install(shared.mock, { root: p.root, cache: link });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("unsafe_cache_dir");
  });
});
