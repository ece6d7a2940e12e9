/**
 * Shapes of `svc-dl install` (cli-contract "Manifest, lock and cache", "JSON documents").
 * Types only: no runtime code.
 */

import type * as z from "zod/mini";
import type { InstallResult, LockFactsSchema } from "../documents/install.js";
import type { Extracted } from "../documents/parts.js";

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
export type InstallSource = NonNullable<InstallItemResult["source"]>;

/**
 * `status` of an install item: the sync statuses (`downloaded`, `resumed`, `up-to-date`,
 * `adopted`, `repaired`, `failed`) plus `cached` (copied from the cache into `dir`; no request)
 * and `lock-mismatch` (the bytes differ from the lock entry, or `--frozen` and the item is not
 * in the lock; nothing was put into `dir`) and `deferred` (left for the next run by
 * `--max-duration`; only in the document of a run that stopped at the deadline).
 */
export type InstallStatus = InstallItemResult["status"];

/**
 * One item of the `install --json` document: as in `packs sync`, plus `kind` and `source`
 * (declared by its schema, src/documents/install.ts).
 */
export type InstallItemResult = InstallResult["items"][number];

/**
 * The `extracted` member of an install item, as `packs sync --extract` reports it: the folder
 * (absolute), `extracted` now or `unchanged` (this archive was extracted before), and its
 * number of files.
 */
export type InstallExtracted = Extracted;

/** Counts of the `summary` member. */
export type InstallSummary = InstallResult["summary"];

/** The `install --json` document without its run end (cli-contract "JSON documents"). */
export type InstallDocument = InstallResult;

/** What a lock entry holds besides its key. */
export type LockFacts = z.infer<typeof LockFactsSchema>;

/** One entry of `svc-dl.lock` changed by a run: its key, the change, and the entry before/after. */
export type LockChange = InstallResult["lock_changes"][number];
