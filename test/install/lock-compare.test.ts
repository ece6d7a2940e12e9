import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContentCache } from "../../src/cache/cache.js";
import {
  compareWithLock,
  describeChange,
  heldBytesContradict,
  lockChanges,
} from "../../src/install/lock-compare.js";
import { itemKey } from "../../src/install/lockfile.js";
import type { LockItem } from "../../src/install/types.js";

const temp = (): string => mkdtempSync(join(tmpdir(), "svc-dl-lockcmp-"));
const sha = (data: string): string => createHash("sha256").update(data).digest("hex");

const entry = (data: string, over: Partial<LockItem> = {}): LockItem => ({
  kind: "pack",
  slug: "forest-pack",
  edition: "standard",
  file: "forest-pack.zip",
  size: data.length,
  etag: '"e1"',
  sha256: sha(data),
  ...over,
});

describe("comparing a lock", () => {
  it("names each field the bytes contradict, and nothing when they agree", () => {
    const lock = entry("hello");
    expect(compareWithLock(lock, { size: 5, sha256: sha("hello") })).toEqual([]);
    expect(compareWithLock(lock, { size: 6, sha256: sha("hello") })).toEqual([
      { field: "size", locked: 5, actual: 6 },
    ]);
    expect(compareWithLock(lock, { size: 5, sha256: sha("world") }).map((d) => d.field)).toEqual([
      "sha256",
    ]);
  });

  it("finds a verified cache entry that proves the lock's size wrong, and the cache keeps it", () => {
    const cache = ContentCache.open(join(temp(), "cache"));
    const work = temp();
    writeFileSync(join(work, "f"), "hello");
    expect(cache.store(join(work, "f"), sha("hello"))).toBe(true);
    const lock = entry("hello", { size: 6 });
    expect(heldBytesContradict(temp(), lock, cache)).toMatchObject({
      origin: "cached",
      facts: { size: 5 },
      diffs: [{ field: "size", locked: 6, actual: 5 }],
    });
    // asked for with the lock's wrong size, the cache misses but never deletes a good entry
    expect(cache.copyOut(sha("hello"), 6, join(work, "out"))).toBe(false);
    expect(cache.has(sha("hello"))).toBe(true);
    expect(cache.copyOut(sha("hello"), 5, join(work, "out"))).toBe(true);
  });

  it("lists added, updated and removed entries, and prints an update as the contract shows", () => {
    const before = [entry("v1"), entry("gone", { slug: "old-pack", file: "old-pack.zip" })];
    const after = [
      entry("v2-longer", { etag: '"e2"' }),
      entry("cube", { kind: "asset", slug: "cube", edition: null, file: "cube.glb" }),
    ];
    const changes = lockChanges(before, after, itemKey);
    expect(changes.map((c) => [c.slug, c.change])).toEqual([
      ["forest-pack", "updated"],
      ["cube", "added"],
      ["old-pack", "removed"],
    ]);
    const [updated] = changes;
    if (!updated) throw new Error("no change");
    expect(describeChange(updated)).toBe(
      `updated pack forest-pack (standard): sha256 ${sha("v1").slice(0, 4)}…→${sha("v2-longer").slice(0, 4)}…, size 2→9`,
    );
  });
});
