import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  downloadRequests,
  type InstallDoc,
  install,
  makeProject,
  type Project,
} from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({
  packSize: 96 * 1024,
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

/** `install --frozen` ends with `code`, its stderr naming each of `texts`, and no request made. */
async function expectRefusedWithoutRequest(p: Project, code: number, texts: string[]) {
  shared.mock.clearLog();
  const r = await install(shared.mock, p, ["--frozen"]);
  expect(r.code, r.stderr).toBe(code);
  for (const text of texts) expect(r.stderr).toContain(text);
  expect(shared.mock.requests).toHaveLength(0);
}

describe("svc-dl install: manifest validation", () => {
  it("refuses an unknown key with exit 2, naming its JSON path", async () => {
    const p = makeProject({ dir: "out", packs: ["sci-fi-props"], extras: true });
    const r = await install(shared.mock, p);
    expect(r.code).toBe(2);
    const err = JSON.parse(r.stderr.trim()) as { error: { code: string; message: string } };
    expect(err.error.code).toBe("invalid_manifest");
    expect(err.error.message).toContain("extras");
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("refuses a bad entry with exit 2, naming packs[1].edition", async () => {
    const p = makeProject({ dir: "out", packs: ["sci-fi-props", { slug: "x", edition: "gold" }] });
    const r = await install(shared.mock, p);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("packs[1].edition");
  });

  it("refuses an unknown key inside an entry and a slug with a slash", async () => {
    const p = makeProject({ dir: "out", assets: [{ slug: "a", colour: "red" }, "../x"] });
    const r = await install(shared.mock, p);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("assets[0].colour");
    expect(r.stderr).toContain("assets[1].slug");
  });

  it("reports a missing manifest with exit 2", async () => {
    const p = makeProject();
    const r = await install(shared.mock, p, ["--manifest", "nope.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("manifest_missing");
  });
});

describe("svc-dl install: lock and convergence", () => {
  it("writes a stable lock, then a second install makes no download request", async () => {
    const p = makeProject();
    const first = await install(shared.mock, p);
    expect(first.code, first.stderr).toBe(0);
    const doc = JSON.parse(first.stdout) as InstallDoc;
    expect(doc.items.map((i) => [i.slug, i.status, i.source])).toEqual([
      ["sci-fi-props", "downloaded", "network"],
      ["low-poly-forest", "downloaded", "network"],
      ["free-sample-cube", "downloaded", "network"],
    ]);
    const lockPath = join(p.root, "svc-dl.lock");
    const lockText = readFileSync(lockPath, "utf8");
    expect(lockText.endsWith("}\n")).toBe(true);
    const lock = JSON.parse(lockText) as { lockfileVersion: number; items: { slug: string }[] };
    expect(lock.lockfileVersion).toBe(1);
    // sorted by kind, then slug
    expect(lock.items.map((i) => i.slug)).toEqual([
      "free-sample-cube",
      "low-poly-forest",
      "sci-fi-props",
    ]);
    const info = await shared.mock.fileInfo({ kind: "pack", slug: "sci-fi-props" });
    expect(lockText).toContain(info.sha256);
    expect(readFileSync(join(p.root, "vendor/assets", info.filename)).length).toBe(info.size);
    const mtime = statSync(lockPath).mtimeMs;

    shared.mock.clearLog();
    const second = await install(shared.mock, p);
    expect(second.code, second.stderr).toBe(0);
    expect(downloadRequests(shared.mock)).toHaveLength(0);
    const doc2 = JSON.parse(second.stdout) as InstallDoc;
    expect(doc2.items.every((i) => i.source === "local" && i.status === "up-to-date")).toBe(true);
    expect(readFileSync(lockPath, "utf8")).toBe(lockText);
    expect(statSync(lockPath).mtimeMs).toBe(mtime);
  });

  it("a version bump upstream fails --frozen and plain installs with exit 9; --update takes it", async () => {
    const p = makeProject({ dir: "out", packs: ["desert-rocks"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const lockPath = join(p.root, "svc-dl.lock");
    const before = readFileSync(lockPath, "utf8");
    const oldFile = join(p.root, "out", "desert-rocks.zip");
    const oldBytes = readFileSync(oldFile);
    shared.mock.bumpPackVersion("desert-rocks");
    const fresh = await shared.mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
    try {
      // A CI checkout: the locked file is neither in dir nor in the cache.
      rmSync(p.cache, { recursive: true, force: true });
      writeFileSync(oldFile, "tampered");
      const frozen = await install(shared.mock, p, ["--frozen"]);
      expect(frozen.code, frozen.stderr).toBe(9);
      const err = JSON.parse(frozen.stderr.trim().split("\n").pop() ?? "") as {
        error: { code: string; message: string };
      };
      expect(err.error.code).toBe("lock_mismatch");
      expect(err.error.message).toContain("desert-rocks");
      const doc = JSON.parse(frozen.stdout) as InstallDoc;
      expect(doc.items[0]?.status).toBe("lock-mismatch");
      expect(readFileSync(lockPath, "utf8")).toBe(before);
      // nothing in dir was replaced by the new bytes
      expect(readFileSync(oldFile, "utf8")).toBe("tampered");

      writeFileSync(oldFile, oldBytes);
      rmSync(oldFile);
      // a plain install never rewrites the entry; --update does
      const plain = await install(shared.mock, p);
      expect(plain.code, plain.stderr).toBe(9);
      expect(readFileSync(lockPath, "utf8")).toBe(before);
      const updated = await install(shared.mock, p, ["--update"]);
      expect(updated.code, updated.stderr).toBe(0);
      const after = readFileSync(lockPath, "utf8");
      expect(after).not.toBe(before);
      expect(after).toContain(fresh.sha256);
      expect(after).toContain(fresh.etag.replaceAll('"', '\\"'));
    } finally {
      shared.mock.set({ packs: { "desert-rocks": { version: 1 } } });
    }
  });

  it("--frozen fails at once, with no request, when the lock lacks an item", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    writeFileSync(
      join(p.root, "svc-dl.json"),
      JSON.stringify({ dir: "out", assets: ["free-sample-cube", "village-lamp-post"] }),
    );
    await expectRefusedWithoutRequest(p, 9, ["village-lamp-post", "assets[1]"]);
  });
});

describe("svc-dl install: hostile and restored directories", () => {
  it("refuses a lock whose file name leaves dir (exit 2, invalid_lock)", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const lockPath = join(p.root, "svc-dl.lock");
    const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { items: { file: string }[] };
    const [first] = lock.items;
    if (first) first.file = "../../evil.glb";
    writeFileSync(lockPath, JSON.stringify(lock));
    await expectRefusedWithoutRequest(p, 2, ["invalid_lock", "items[0].file"]);
  });

  it("adopts a locked file restored without .svc-dl/, with no request", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p, ["--no-cache"])).code).toBe(0);
    rmSync(join(p.root, "out", ".svc-dl"), { recursive: true });
    shared.mock.clearLog();
    const r = await install(shared.mock, p, ["--frozen", "--no-cache"], { SVC_API_KEY: undefined });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]).toMatchObject({ status: "adopted", source: "local" });
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("never replaces a file in dir that svc-dl did not put there (file_exists, exit 1)", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p, ["--no-cache"])).code).toBe(0);
    rmSync(join(p.root, "out", ".svc-dl"), { recursive: true });
    const file = join(p.root, "out", "free-sample-cube.glb");
    writeFileSync(file, "my own file");
    const r = await install(shared.mock, p, ["--frozen", "--no-cache"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]?.error?.code).toBe("file_exists");
    expect(readFileSync(file, "utf8")).toBe("my own file");
  });
});
