/**
 * Shapes of `svc-dl install` (cli-contract "Manifest, lock and cache", "JSON documents").
 * Types only: no runtime code.
 */

import type { ItemError } from "../model.js";

/** A pack edition or an asset (`edition` null), as the manifest, the lock and the state name it. */
export interface ItemKey {
  kind: "pack" | "asset";
  slug: string;
  edition: "standard" | "authoring" | null;
}

/** One item declared by the manifest: its key, `extract` (packs), and its JSON path (`packs[1]`). */
export interface InstallItemRef extends ItemKey {
  extract: boolean;
  jsonPath: string;
}

/**
 * One item of `svc-dl.lock`: the file name in `dir`, its size in bytes, the ETag it was served
 * with (null if none) and the lower-case hex SHA-256 of its bytes.
 */
export interface LockItem extends ItemKey {
  file: string;
  size: number;
  etag: string | null;
  sha256: string;
}

/** `svc-dl.lock`: `{"lockfileVersion":1,"items":[…]}`, items sorted by kind, slug, edition. */
export interface LockFile {
  lockfileVersion: 1;
  items: LockItem[];
}

/** Where an installed item's bytes came from: the cache, the network, or `dir` itself. */
export type InstallSource = "cache" | "network" | "local";

/**
 * `status` of an install item: the sync statuses (`downloaded`, `resumed`, `up-to-date`,
 * `adopted`, `repaired`, `failed`) plus `cached` (copied from the cache into `dir`; no request)
 * and `lock-mismatch` (the bytes differ from the lock entry, or `--frozen` and the item is not
 * in the lock; nothing was put into `dir`) and `deferred` (left for the next run by
 * `--max-duration`; only in the document of a run that stopped at the deadline).
 */
export type InstallStatus =
  | "downloaded"
  | "cached"
  | "resumed"
  | "up-to-date"
  | "adopted"
  | "repaired"
  | "lock-mismatch"
  | "deferred"
  | "failed";

/** One item of the `install --json` document: as in `packs sync`, plus `kind` and `source`. */
export interface InstallItemResult {
  kind: "pack" | "asset";
  slug: string;
  edition: "standard" | "authoring" | null;
  status: InstallStatus;
  /** Why the item was taken from where it was, or what went wrong, in words. */
  reason: string | null;
  /** Absolute path of the file in `dir`, when there is one. */
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  /** Where the bytes came from; null for a failed item. */
  source: InstallSource | null;
  error: ItemError | null;
  /** With `--extract` (or `"extract": true`), for a pack: where and whether it was unpacked. */
  extracted?: InstallExtracted;
}

/**
 * The `extracted` member of an install item, as `packs sync --extract` reports it: the folder
 * (absolute), `extracted` now or `unchanged` (this archive was extracted before), and its
 * number of files.
 */
export interface InstallExtracted {
  path: string;
  status: "extracted" | "unchanged";
  files: number;
}

/** Counts of the `summary` member. */
export interface InstallSummary {
  /** Items fetched over the network now (`downloaded`, `resumed`, `repaired` from the network). */
  downloaded: number;
  /** Items already in `dir` or unchanged upstream. */
  up_to_date: number;
  /** Items copied from the cache (status `cached`, or `repaired` from the cache). */
  from_cache: number;
  /** Items that failed (not counting lock mismatches). */
  failed: number;
  /** Items whose bytes differ from their lock entry, or (`--frozen`) that the lock lacks. */
  lock_mismatch: number;
  /** Requests-free items: taken from the cache or `dir` without any request. */
  no_request: number;
  /** Items left for the next run by `--max-duration` (present when it was given). */
  deferred?: number;
}

/** The `install --json` document (cli-contract "JSON documents"). */
export interface InstallDocument {
  /** Absolute path of the manifest. */
  manifest: string;
  /** Absolute path of `svc-dl.lock`. */
  lock: string;
  /** Absolute path of `dir`. */
  dir: string;
  items: InstallItemResult[];
  summary: InstallSummary;
  /**
   * The entries of `svc-dl.lock` this run added, removed or updated (written to disk); empty
   * with `--frozen`, when nothing changed, and when the run failed (the lock is then not written).
   */
  lock_changes: LockChange[];
}

/** What a lock entry holds besides its key. */
export interface LockFacts {
  file: string;
  size: number;
  etag: string | null;
  sha256: string;
}

/** One entry of `svc-dl.lock` changed by a run: its key, the change, and the entry before/after. */
export interface LockChange extends ItemKey {
  change: "added" | "removed" | "updated";
  /** The entry before (null when added). */
  before: LockFacts | null;
  /** The entry after (null when removed). */
  after: LockFacts | null;
}
