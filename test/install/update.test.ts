// The lock update flow (cli-contract "Manifest, lock and cache"): a plain install never rewrites
// an entry, `--update [SLUG...]` does and says what changed, and every exit-9 hint works.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { runCli } from "../helpers/cli.js";
import {
  downloadRequests,
  type InstallDoc,
  install,
  makeProject,
  type Project,
} from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService({
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

const SLUG = "desert-rocks";

beforeEach(() => {
  shared.mock.set({ packs: { [SLUG]: { version: 1, size: 64 * 1024 } } });
});

interface ErrorLine {
  error: { code: string; message: string; hint: string | null };
}

/** The `--json` error line (the last line of stderr). */
function errorLine(stderr: string): ErrorLine {
  return JSON.parse(stderr.trim().split("\n").pop() ?? "") as ErrorLine;
}

/** The copy a CI job works on: the manifest and the lock checked out, no files, a cold cache. */
function checkout(p: Project): Project {
  const ci = makeProject();
  cpSync(join(p.root, "svc-dl.json"), join(ci.root, "svc-dl.json"));
  cpSync(join(p.root, "svc-dl.lock"), join(ci.root, "svc-dl.lock"));
  return ci;
}

/** `svc-dl install ARGS` without `--json` (human output on stderr), with the mock's key. */
function installHuman(p: Project, args: string[]) {
  const env = { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: shared.mock.apiKey };
  return runCli(["install", ...args], { cwd: p.root, env: { ...env, SVC_DL_CACHE_DIR: p.cache } });
}

const lockOf = (p: Project): string => readFileSync(join(p.root, "svc-dl.lock"), "utf8");

describe("svc-dl install: the lock is never rewritten silently", () => {
  it("the exit-9 hint of --frozen leads to a lock with which --frozen passes", async () => {
    const dev = makeProject({ dir: "out", packs: [SLUG], assets: ["free-sample-cube"] });
    expect((await install(shared.mock, dev)).code).toBe(0);
    const before = lockOf(dev);
    shared.mock.set({ packs: { [SLUG]: { version: 2, size: 70 * 1024 } } });
    const fresh = await shared.mock.fileInfo({ kind: "pack", slug: SLUG });

    const ci = await install(shared.mock, checkout(dev), ["--frozen"]);
    expect(ci.code, ci.stderr).toBe(9);
    const { error } = errorLine(ci.stderr);
    expect(error.code).toBe("lock_mismatch");
    expect(error.message).toContain(`pack ${SLUG} (standard)`);
    expect(error.message).toContain('field "sha256"');
    expect(error.message).toContain('field "size"');
    const command = /`svc-dl (install --update [^`]+)`/.exec(error.hint ?? "")?.[1];
    expect(command).toBe(`install --update ${SLUG}`);

    // The developer follows the hint where the old files are in place and in the cache.
    const updated = await install(shared.mock, dev, (command ?? "").split(" ").slice(1));
    expect(updated.code, updated.stderr).toBe(0);
    const doc = JSON.parse(updated.stdout) as InstallDoc & { lock_changes: unknown[] };
    expect(doc.lock_changes).toEqual([
      {
        kind: "pack",
        slug: SLUG,
        edition: "standard",
        change: "updated",
        before: expect.objectContaining({ size: 64 * 1024 }),
        after: { file: fresh.filename, size: fresh.size, etag: fresh.etag, sha256: fresh.sha256 },
      },
    ]);
    const after = lockOf(dev);
    expect(after).not.toBe(before);
    expect(after).toContain(fresh.sha256);
    expect(readFileSync(join(dev.root, "out", fresh.filename)).length).toBe(fresh.size);

    const again = await install(shared.mock, checkout(dev), ["--frozen"]);
    expect(again.code, again.stderr).toBe(0);
    const verify = await runCli(["verify", join(dev.root, "out")]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it("a plain install with a cold cache fails with exit 9 instead of rewriting the entry", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const before = lockOf(p);
    shared.mock.bumpPackVersion(SLUG);
    const ci = checkout(p);
    const r = await install(shared.mock, ci);
    expect(r.code, r.stderr).toBe(9);
    expect(errorLine(r.stderr).error.hint).toContain(`svc-dl install --update ${SLUG}`);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]).toMatchObject({ status: "lock-mismatch", source: "network", path: null });
    expect(lockOf(ci)).toBe(before);
  });

  it("adds entries for new items and drops undeclared ones, keeping the others byte-identical", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG], assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const entryOf = (slug: string) =>
      (JSON.parse(lockOf(p)) as { items: { slug: string }[] }).items.find((i) => i.slug === slug);
    const kept = entryOf(SLUG);
    writeFileSync(
      join(p.root, "svc-dl.json"),
      JSON.stringify({ dir: "out", packs: [SLUG], assets: ["village-lamp-post"] }),
    );
    const r = await install(shared.mock, p);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { lock_changes: { slug: string; change: string }[] };
    expect(doc.lock_changes.map((c) => [c.slug, c.change])).toEqual([
      ["village-lamp-post", "added"],
      ["free-sample-cube", "removed"],
    ]);
    expect(entryOf(SLUG)).toEqual(kept);
    expect(entryOf("free-sample-cube")).toBeUndefined();
  });

  it("--update with nothing changed says so and leaves the lock as it was", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const before = lockOf(p);
    shared.mock.clearLog();
    const r = await installHuman(p, ["--update"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("svc-dl.lock unchanged");
    // re-fetched from the service although the file is in dir and in the cache
    expect(downloadRequests(shared.mock).length).toBeGreaterThan(0);
    expect(lockOf(p)).toBe(before);
  });

  it("prints one human line per changed entry", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const old = await shared.mock.fileInfo({ kind: "pack", slug: SLUG });
    shared.mock.set({ packs: { [SLUG]: { version: 2, size: 70 * 1024 } } });
    const fresh = await shared.mock.fileInfo({ kind: "pack", slug: SLUG });
    const r = await installHuman(p, ["--update", SLUG]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `updated pack ${SLUG} (standard): sha256 ${old.sha256.slice(0, 4)}…→${fresh.sha256.slice(0, 4)}…, size ${old.size}→${fresh.size}`,
    );
  });

  it("refuses --frozen with --update, and --update of an undeclared slug (exit 2)", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG] });
    const both = await install(shared.mock, p, ["--frozen", "--update"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /--frozen.*cannot be used with.*--update|--update.*cannot be used with.*--frozen/,
    );
    const unknown = await install(shared.mock, p, ["--update", "nope"]);
    expect(unknown.code).toBe(2);
    expect(errorLine(unknown.stderr).error.message).toContain("--update names nope");
    expect(shared.mock.requests.filter((q) => q.url.includes("/download"))).toHaveLength(0);
  });

  it("--frozen with an item the lock lacks says so, prints the document, and hints at install", async () => {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    writeFileSync(
      join(p.root, "svc-dl.json"),
      JSON.stringify({ dir: "out", assets: ["free-sample-cube", "village-lamp-post"] }),
    );
    shared.mock.clearLog();
    const r = await install(shared.mock, p, ["--frozen"]);
    expect(r.code).toBe(9);
    const { error } = errorLine(r.stderr);
    expect(error.message).toContain("asset village-lamp-post (assets[1]) is not in svc-dl.lock");
    expect(error.message).not.toContain("differ");
    expect(error.hint).toContain("Run `svc-dl install` (without --frozen)");
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items).toEqual([
      expect.objectContaining({ slug: "village-lamp-post", status: "lock-mismatch" }),
    ]);
    expect(doc.summary.lock_mismatch).toBe(1);
    expect(shared.mock.requests).toHaveLength(0);

    // following the hint: a plain install adds the entry, then --frozen passes
    expect((await install(shared.mock, p)).code).toBe(0);
    expect((await install(shared.mock, p, ["--frozen"])).code).toBe(0);
  });
});

describe("svc-dl install: cache copies", () => {
  it("are reported as cached, not downloaded, in --json and in human output", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG], assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const ci = { ...checkout(p), cache: p.cache };
    const r = await install(shared.mock, ci, ["--frozen"], { SVC_API_KEY: undefined });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items.map((i) => [i.status, i.source])).toEqual([
      ["cached", "cache"],
      ["cached", "cache"],
    ]);
    expect(doc.summary).toMatchObject({ downloaded: 0, from_cache: 2, no_request: 2 });
    rmSync(join(ci.root, "out"), { recursive: true });
    const human = await runCli(["install", "--frozen"], {
      cwd: ci.root,
      env: { SVC_DL_CACHE_DIR: p.cache },
    });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain(`pack ${SLUG} (standard): cached (from the cache)`);
    expect(human.stderr).not.toContain("downloaded (from the cache)");
  });
});

describe("svc-dl install: a lock is checked, not believed", () => {
  /** A project installed once, whose lock then claims `size + 1` for the one asset. */
  async function wrongSize(): Promise<{ p: Project; real: number }> {
    const p = makeProject({ dir: "out", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const lock = JSON.parse(lockOf(p)) as { items: { size: number }[] };
    const item = lock.items[0];
    if (!item) throw new Error("no lock entry");
    const real = item.size;
    item.size = real + 1;
    writeFileSync(join(p.root, "svc-dl.lock"), `${JSON.stringify(lock, null, 2)}\n`);
    return { p, real };
  }

  it("a wrong size with a warm cache is exit 9 naming size, and the entry stays", async () => {
    const { p, real } = await wrongSize();
    const ci = { ...checkout(p), cache: p.cache };
    shared.mock.clearLog();
    const r = await install(shared.mock, ci, ["--frozen"], { SVC_API_KEY: undefined });
    expect(r.code, r.stderr).toBe(9);
    expect(errorLine(r.stderr).error.message).toContain('field "size"');
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]).toMatchObject({ status: "lock-mismatch", source: "cache", bytes: real });
    expect(shared.mock.requests).toHaveLength(0);
    // the verified entry is still there: with the right lock, no request is needed
    writeFileSync(join(ci.root, "svc-dl.lock"), lockOf(p).replace(`${real + 1}`, `${real}`));
    const ok = await install(shared.mock, ci, ["--frozen"], { SVC_API_KEY: undefined });
    expect(ok.code, ok.stderr).toBe(0);
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("a wrong size served over the network is exit 9 naming size; nothing is recorded", async () => {
    const { p } = await wrongSize();
    const ci = checkout(p);
    const r = await install(shared.mock, ci, ["--frozen", "--no-cache"]);
    expect(r.code, r.stderr).toBe(9);
    expect(errorLine(r.stderr).error.message).toContain("served size");
    expect(existsSync(join(ci.root, "out", "free-sample-cube.glb"))).toBe(false);
    const plain = await install(shared.mock, ci, ["--no-cache"]);
    expect(plain.code, plain.stderr).toBe(9);
    expect(errorLine(plain.stderr).error.hint).toContain(
      "svc-dl install --update free-sample-cube",
    );
  });

  it("a wrong size with the file in dir is exit 9 naming size, without a request", async () => {
    const { p, real } = await wrongSize();
    shared.mock.clearLog();
    const r = await install(shared.mock, p, ["--no-cache"], { SVC_API_KEY: undefined });
    expect(r.code, r.stderr).toBe(9);
    const doc = JSON.parse(r.stdout) as InstallDoc;
    expect(doc.items[0]).toMatchObject({ status: "lock-mismatch", source: "local", bytes: real });
    expect(shared.mock.requests).toHaveLength(0);
    rmSync(join(p.root, "out"), { recursive: true });
  });
});

describe("library: install({ update })", () => {
  it("re-fetches the named items and reports lock_changes; refuses it with frozen", async () => {
    const p = makeProject({ dir: "out", packs: [SLUG] });
    const client = createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });
    await client.install({ cwd: p.root });
    shared.mock.bumpPackVersion(SLUG);
    const fresh = await shared.mock.fileInfo({ kind: "pack", slug: SLUG });
    const doc = await client.install({ cwd: p.root, update: [SLUG] });
    expect(doc.items[0]).toMatchObject({ status: "downloaded", source: "network" });
    expect(doc.lock_changes.map((c) => [c.change, c.after?.sha256])).toEqual([
      ["updated", fresh.sha256],
    ]);
    await expect(client.install({ cwd: p.root, frozen: true, update: true })).rejects.toThrow(
      expect.objectContaining({ exitCode: 2 }),
    );
  });
});
