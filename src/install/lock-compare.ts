import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { ContentCache } from "../cache/cache.js";
import { hashRegularFileSync } from "../io/file-hash.js";
import { describeItem } from "./outcome.js";
import type { ItemKey, LockChange, LockItem } from "./types.js";

/**
 * Comparing a lock (cli-contract "Untrusted text, paths and caches": a lock is checked, not
 * believed). `svc-dl.lock` comes from a repository: its `size` and `sha256` are claims. Every
 * way an install gets an item's bytes (already in `dir`, from the cache, over the network, with
 * or without `--frozen` or `--update`) compares the bytes' own size and SHA-256 with the lock
 * here, records and reports the bytes' own values, and names the field that differs.
 */

/** The facts of a file, measured from its bytes: size in bytes and lower-case hex SHA-256. */
export interface FileFacts {
  size: number;
  sha256: string;
}

/** A lock field that the bytes contradict, with both values. */
export interface LockDifference {
  field: "size" | "sha256";
  locked: string | number;
  actual: string | number;
}

/** Where compared bytes came from, as messages name it. */
export type BytesOrigin = "served" | "cached" | "in dir";

/** The fields of `lock` that the bytes described by `actual` contradict (empty: they agree). */
export function compareWithLock(lock: LockItem, actual: FileFacts): LockDifference[] {
  const out: LockDifference[] = [];
  if (actual.sha256 !== lock.sha256) {
    out.push({ field: "sha256", locked: lock.sha256, actual: actual.sha256 });
  }
  if (actual.size !== lock.size)
    out.push({ field: "size", locked: lock.size, actual: actual.size });
  return out;
}

/** `served size 120 differs from the locked 100 (svc-dl.lock field "size")`, joined by `; `. */
export function describeDifferences(diffs: readonly LockDifference[], origin: BytesOrigin): string {
  return diffs
    .map(
      (d) =>
        `${origin} ${d.field === "size" ? "size" : "SHA-256"} ${d.actual} differs from the locked ${d.locked} (svc-dl.lock field "${d.field}")`,
    )
    .join("; ");
}

/**
 * Bytes svc-dl already holds for `lock.sha256` whose size contradicts the lock: the file at
 * `lock.file` in `dir` or the cache entry, when its size differs from `lock.size` and its bytes
 * (hashed now) have the locked SHA-256. One SHA-256 has one size, so the lock's `size` is
 * wrong. Returns the differences, where the bytes are and their facts, or undefined (nothing contradicts the
 * lock without reading more). Reads only: never deletes or moves anything (a cache entry whose
 * bytes hash to its name stays, whatever a lock says). Symlinks are not followed.
 */
export function heldBytesContradict(
  dir: string,
  lock: LockItem,
  cache: ContentCache | undefined,
): { diffs: LockDifference[]; origin: BytesOrigin; facts: FileFacts } | undefined {
  const places: [string, BytesOrigin][] = [[join(dir, lock.file), "in dir"]];
  // `has` checks that no component inside the cache is a symlink.
  if (cache?.has(lock.sha256)) places.push([cache.entryPath(lock.sha256), "cached"]);
  for (const [path, origin] of places) {
    const facts = measureIfSizeDiffers(path, lock.size);
    if (facts?.sha256 === lock.sha256)
      return { diffs: compareWithLock(lock, facts), origin, facts };
  }
  return undefined;
}

function measureIfSizeDiffers(path: string, size: number): FileFacts | undefined {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size === size) return undefined;
    const h = hashRegularFileSync(path);
    return h && { size: h.bytes, sha256: h.sha256 };
  } catch {
    return undefined;
  }
}

/** The lock entry for `item` as its bytes are: their own size and SHA-256, the served ETag. */
export function entryFromBytes(
  item: ItemKey,
  file: string,
  facts: FileFacts,
  etag: string | null,
): LockItem {
  return {
    kind: item.kind,
    slug: item.slug,
    edition: item.edition,
    file,
    size: facts.size,
    etag,
    sha256: facts.sha256,
  };
}

/**
 * What changed between the lock on disk and the one about to be written, entry by entry (keys
 * from `keyOf`): `added`, `removed`, or `updated` (any field differs). Sorted as given.
 */
export function lockChanges(
  before: readonly LockItem[],
  after: readonly LockItem[],
  keyOf: (i: ItemKey) => string,
): LockChange[] {
  const old = new Map(before.map((i) => [keyOf(i), i]));
  const changes: LockChange[] = [];
  for (const entry of after) {
    const prev = old.get(keyOf(entry));
    old.delete(keyOf(entry));
    if (!prev) changes.push(change("added", entry, null, entry));
    else if (!sameEntry(prev, entry)) changes.push(change("updated", entry, prev, entry));
  }
  for (const prev of old.values()) changes.push(change("removed", prev, prev, null));
  return changes;
}

function change(
  action: LockChange["change"],
  key: ItemKey,
  before: LockItem | null,
  after: LockItem | null,
): LockChange {
  const facts = (e: LockItem | null) =>
    e ? { file: e.file, size: e.size, etag: e.etag, sha256: e.sha256 } : null;
  return {
    kind: key.kind,
    slug: key.slug,
    edition: key.edition,
    change: action,
    before: facts(before),
    after: facts(after),
  };
}

function sameEntry(a: LockItem, b: LockItem): boolean {
  return a.file === b.file && a.size === b.size && a.etag === b.etag && a.sha256 === b.sha256;
}

/**
 * One human line per lock change: `updated pack forest-pack (standard): sha256 1a2b…→9f8e…,
 * size 100→120` (the fields that changed; the ETag only when nothing else did), `added asset cube: sha256 1a2b…, size 100`,
 * `removed pack old-pack (standard)`. Strings from outside are the caller's to escape.
 */
export function describeChange(c: LockChange): string {
  const what = describeItem(c);
  const short = (s: string) => `${s.slice(0, 4)}…`;
  if (c.change === "removed" || !c.after) return `removed ${what}`;
  if (c.change === "added" || !c.before) {
    return `added ${what}: sha256 ${short(c.after.sha256)}, size ${c.after.size}`;
  }
  const parts: string[] = [];
  const { before: b, after: a } = c;
  if (b.sha256 !== a.sha256) parts.push(`sha256 ${short(b.sha256)}→${short(a.sha256)}`);
  if (b.size !== a.size) parts.push(`size ${b.size}→${a.size}`);
  if (b.file !== a.file) parts.push(`file ${b.file}→${a.file}`);
  // The ETag is named only when it is all that changed (new bytes have a new ETag anyway).
  if (parts.length === 0) parts.push(`etag ${b.etag ?? "none"}→${a.etag ?? "none"}`);
  return `updated ${what}: ${parts.join(", ")}`;
}
