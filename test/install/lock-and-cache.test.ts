import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContentCache } from "../../src/cache/cache.js";
import { readLock, renderLock, writeLockIfChanged } from "../../src/install/lockfile.js";
import { parseManifest } from "../../src/install/manifest.js";
import type { LockItem } from "../../src/install/types.js";

const temp = (): string => mkdtempSync(join(tmpdir(), "svc-dl-unit-"));
const sha = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

const ITEM = (slug: string, kind: "pack" | "asset" = "pack"): LockItem => ({
  kind,
  slug,
  edition: kind === "pack" ? "standard" : null,
  file: `${slug}.${kind === "pack" ? "zip" : "glb"}`,
  size: 3,
  etag: '"e"',
  sha256: sha(slug),
});

describe("manifest", () => {
  it("resolves dir against the manifest's directory and expands bare slugs", () => {
    const m = parseManifest(
      {
        dir: "vendor",
        packs: ["a", { slug: "b", edition: "authoring", extract: true }],
        assets: ["c"],
      },
      "/repo/sub/svc-dl.json",
    );
    expect(m.dir).toBe("/repo/sub/vendor");
    expect(m.items.map((i) => [i.kind, i.slug, i.edition, i.extract, i.jsonPath])).toEqual([
      ["pack", "a", "standard", false, "packs[0]"],
      ["pack", "b", "authoring", true, "packs[1]"],
      ["asset", "c", null, false, "assets[0]"],
    ]);
  });

  it("refuses a missing dir, a non-array, and an item declared twice, naming the path", () => {
    expect(() => parseManifest({ packs: [] }, "/m.json")).toThrow(/dir/);
    expect(() => parseManifest({ dir: "x", packs: "a" }, "/m.json")).toThrow(/packs/);
    expect(() => parseManifest({ dir: "x", packs: ["a", { slug: "a" }] }, "/m.json")).toThrow(
      /packs\[1\]: declares the same item as packs\[0\]/,
    );
    expect(() => parseManifest({ dir: "x", packs: [7] }, "/m.json")).toThrow(/packs\[0\]/);
  });
});

describe("svc-dl.lock", () => {
  it("renders sorted, two-space indented, newline-terminated, whatever the input order", () => {
    const a = renderLock([ITEM("zeta"), ITEM("alpha"), ITEM("cube", "asset")]);
    const b = renderLock([ITEM("cube", "asset"), ITEM("alpha"), ITEM("zeta")]);
    expect(a).toBe(b);
    expect(a.endsWith("}\n")).toBe(true);
    expect(a).toContain('\n  "items": [\n    {\n      "kind": "asset"');
    const parsed = JSON.parse(a) as { items: LockItem[] };
    expect(parsed.items.map((i) => i.slug)).toEqual(["cube", "alpha", "zeta"]);
  });

  it("is written only when its content changes, and read back as written", async () => {
    const path = join(temp(), "svc-dl.lock");
    expect(await writeLockIfChanged(path, [ITEM("a")])).toBe(true);
    expect(await writeLockIfChanged(path, [ITEM("a")])).toBe(false);
    expect(readLock(path)?.items).toEqual([ITEM("a")]);
    expect(await writeLockIfChanged(path, [ITEM("a"), ITEM("b")])).toBe(true);
  });

  it("refuses unknown keys, unsafe names and non-hex hashes (invalid_lock, exit 2)", () => {
    const dir = temp();
    const write = (doc: unknown): string => {
      const path = join(dir, `${Math.random()}.lock`);
      writeFileSync(path, JSON.stringify(doc));
      return path;
    };
    const ok = { lockfileVersion: 1, items: [ITEM("a")] };
    expect(readLock(write(ok))?.items).toHaveLength(1);
    for (const bad of [
      { ...ok, extra: 1 },
      { lockfileVersion: 2, items: [] },
      { lockfileVersion: 1, items: [{ ...ITEM("a"), file: "../a.zip" }] },
      { lockfileVersion: 1, items: [{ ...ITEM("a"), file: ".hidden" }] },
      { lockfileVersion: 1, items: [{ ...ITEM("a"), sha256: "XYZ" }] },
    ]) {
      expect(() => readLock(write(bad))).toThrow(
        expect.objectContaining({ code: "invalid_lock", exitCode: 2 }),
      );
    }
    expect(readLock(join(dir, "absent.lock"))).toBeUndefined();
  });
});

describe("the content cache", () => {
  it("stores by SHA-256, re-hashes on the way out, and drops a damaged entry", () => {
    const root = join(temp(), "cache");
    const cache = ContentCache.open(root);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const work = temp();
    const src = join(work, "file");
    writeFileSync(src, "hello");
    expect(cache.store(src, sha("hello"))).toBe(true);
    expect(cache.store(src, sha("other"))).toBe(false); // bytes are not what the caller claims
    expect(cache.copyOut(sha("hello"), 5, join(work, "out"))).toBe(true);
    expect(readFileSync(join(work, "out"), "utf8")).toBe("hello");

    writeFileSync(cache.entryPath(sha("hello")), "HELLO");
    expect(cache.copyOut(sha("hello"), 5, join(work, "out2"))).toBe(false);
    expect(cache.has(sha("hello"))).toBe(false);
    expect(readdirSync(work).sort()).toEqual(["file", "out"]);
  });

  it("never reads an entry through a symlink", () => {
    const root = join(temp(), "cache");
    const cache = ContentCache.open(root);
    const work = temp();
    writeFileSync(join(work, "secret"), "hello");
    const entry = cache.entryPath(sha("hello"));
    mkdirSync(join(entry, ".."), { recursive: true });
    symlinkSync(join(work, "secret"), entry);
    expect(cache.copyOut(sha("hello"), 5, join(work, "out"))).toBe(false);
    expect(readdirSync(work)).toEqual(["secret"]);
  });

  it("refuses a cache directory writable by others (unsafe_cache_dir, exit 8)", () => {
    const root = join(temp(), "cache");
    mkdirSync(root);
    chmodSync(root, 0o777);
    expect(() => ContentCache.open(root)).toThrow(
      expect.objectContaining({ code: "unsafe_cache_dir", exitCode: 8 }),
    );
  });
});
