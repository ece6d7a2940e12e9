import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
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

// cli-contract "Integrity": a cache entry whose bytes do not hash to its name is removed and
// fetched again (with the key) when a run needs it; it never makes every later run fail.

const shared = useMockService({ packSize: 96 * 1024 });

const PACK = { dir: "out", packs: ["sci-fi-props"] };

/** The one entry of a cache holding one item. */
function onlyEntry(cache: string): string {
  const all = cachedFiles(cache);
  expect(all).toHaveLength(1);
  return all[0] ?? "";
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** A fresh checkout of `from`'s manifest and lock sharing its cache (a CI job). */
function checkout(from: { root: string; cache: string }): { root: string; cache: string } {
  const ci = makeProject(PACK);
  cpSync(join(from.root, "svc-dl.lock"), join(ci.root, "svc-dl.lock"));
  return { root: ci.root, cache: from.cache };
}

/** A project whose install filled the cache with its one pack: the entry and its name. */
async function installedPack() {
  const p = makeProject(PACK);
  expect((await install(shared.mock, p)).code).toBe(0);
  const entry = onlyEntry(p.cache);
  return { p, entry, name: basename(entry) };
}

/** A keyless `install --frozen` of a fresh checkout: served from the cache, zero requests. */
async function expectKeylessFromCache(p: { root: string; cache: string }): Promise<void> {
  shared.mock.clearLog();
  const r = await install(shared.mock, checkout(p), ["--frozen"], { SVC_API_KEY: undefined });
  expect(r.code, r.stderr).toBe(0);
  expect((JSON.parse(r.stdout) as InstallDoc).items[0]?.source).toBe("cache");
  expect(shared.mock.requests).toHaveLength(0);
}

const damages: [string, (entry: string) => void][] = [
  ["truncated", (entry) => truncateSync(entry, 40 * 1024)],
  [
    "with one byte flipped",
    (entry) => {
      const bytes = readFileSync(entry);
      bytes[50_000] = (bytes[50_000] ?? 0) ^ 0x01;
      writeFileSync(entry, bytes);
    },
  ],
];

describe("svc-dl install: a damaged cache entry", () => {
  for (const [what, damage] of damages) {
    it(`${what}: removed, fetched again with the key, then serves keyless --frozen runs`, async () => {
      const { p, entry, name } = await installedPack();
      damage(entry);

      shared.mock.clearLog();
      const healed = await install(shared.mock, checkout(p), ["--frozen"]);
      expect(healed.code, healed.stderr).toBe(0);
      const doc = JSON.parse(healed.stdout) as InstallDoc;
      expect(doc.items[0]?.source).toBe("network");
      expect(downloadRequests(shared.mock).length).toBeGreaterThan(0);
      expect(sha256(onlyEntry(p.cache))).toBe(name); // whole again

      await expectKeylessFromCache(p);
    });
  }

  it("without a key, the run that finds it fails once (exit 3) and the next run with a key heals it", async () => {
    const { p, entry, name } = await installedPack();
    truncateSync(entry, 1000);

    const ci = checkout(p);
    const first = await runCli(["install", "--frozen"], {
      cwd: ci.root,
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_DL_CACHE_DIR: ci.cache },
    });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain(
      `removed the cache entry ${name}: its bytes do not hash to its name (damaged); fetching it again`,
    );
    expect(first.stderr).toContain("no_api_key");
    expect(existsSync(entry)).toBe(false);

    expect((await install(shared.mock, checkout(p), ["--frozen"])).code).toBe(0);
    expect(sha256(entry)).toBe(name);
    await expectKeylessFromCache(p);
  });

  it("an entry damaged while the item is already in dir is replaced by the file in dir", async () => {
    const { p, entry, name } = await installedPack();
    truncateSync(entry, 0);
    shared.mock.clearLog();
    const again = await install(shared.mock, p, ["--frozen"]);
    expect(again.code, again.stderr).toBe(0);
    expect(shared.mock.requests).toHaveLength(0);
    expect(sha256(entry)).toBe(name);
  });
});
