import * as z from "zod/mini";
import {
  count,
  ExtractedSchema,
  edition,
  ItemErrorSchema,
  kind,
  RunErrorSchema,
  runEnd,
  sha256,
  text,
} from "./parts.js";

/**
 * `install --json` and `--report` (cli-contract "Manifest, lock and cache"; src/install/):
 * items as in `packs sync` plus `kind` and `source`, the statuses `cached`, `lock-mismatch`
 * and (`--max-duration`) `deferred`, and `lock_changes`.
 */

/** The facts of a `svc-dl.lock` entry, as `lock_changes` shows them before and after. */
export const LockFactsSchema = z.strictObject({
  file: text,
  size: count,
  etag: z.nullable(z.string()),
  sha256,
});

/**
 * `status` of an install item: the sync statuses plus `cached` (copied from the cache into
 * `dir`; no request), `lock-mismatch` (the bytes differ from the lock entry, or `--frozen` and
 * the item is not in the lock; nothing was put into `dir`) and `deferred` (left for the next
 * run by `--max-duration`).
 */
export const InstallStatusSchema = z.enum([
  "downloaded",
  "cached",
  "resumed",
  "up-to-date",
  "adopted",
  "repaired",
  "lock-mismatch",
  "deferred",
  "failed",
]);

/** One item of the `install --json` document: as in `packs sync`, plus `kind` and `source`. */
export const InstallItemSchema = z.strictObject({
  kind,
  slug: text,
  edition: z.nullable(edition),
  status: InstallStatusSchema,
  /** Why the item was taken from where it was, or what went wrong, in words. */
  reason: z.nullable(text),
  /** Absolute path of the file in `dir`, when there is one. */
  path: z.nullable(text),
  bytes: z.nullable(count),
  sha256: z.nullable(sha256),
  /** Where the bytes came from: the cache, the network, or `dir` itself; null for a failed item. */
  source: z.nullable(z.enum(["cache", "network", "local"])),
  error: z.nullable(ItemErrorSchema),
  /** With `--extract` (or `"extract": true`), for a pack: where and whether it was unpacked. */
  extracted: z.optional(ExtractedSchema),
});

/** A lock entry the run added, removed or updated, with its facts before and after. */
export const LockChangeSchema = z.strictObject({
  kind,
  slug: text,
  edition: z.nullable(edition),
  change: z.enum(["added", "removed", "updated"]),
  before: z.nullable(LockFactsSchema),
  after: z.nullable(LockFactsSchema),
});

/** Counts of the `summary` member. */
export const InstallSummarySchema = z.strictObject({
  /** Items fetched over the network now (`downloaded`, `resumed`, `repaired` from the network). */
  downloaded: count,
  /** Items already in `dir` or unchanged upstream. */
  up_to_date: count,
  /** Items copied from the cache (status `cached`, or `repaired` from the cache). */
  from_cache: count,
  /** Items that failed (not counting lock mismatches). */
  failed: count,
  /** Items whose bytes differ from their lock entry, or (`--frozen`) that the lock lacks. */
  lock_mismatch: count,
  /** Requests-free items: taken from the cache or `dir` without any request. */
  no_request: count,
  /** Items left for the next run by `--max-duration` (present when it was given). */
  deferred: z.optional(count),
});

/** `install --json` without its run end: what the library's `install` returns. */
export const InstallResultSchema = z.strictObject({
  /** Absolute path of the manifest. */
  manifest: text,
  /** Absolute path of `svc-dl.lock`. */
  lock: text,
  /** Absolute path of `dir`. */
  dir: text,
  items: z.array(InstallItemSchema),
  summary: InstallSummarySchema,
  /**
   * The entries of `svc-dl.lock` this run added, removed or updated (written to disk); empty
   * with `--frozen`, when nothing changed, and when the run failed (the lock is then not written).
   */
  lock_changes: z.array(LockChangeSchema),
});

/** `install --json` without its run end (see {@link InstallResultSchema}). */
export type InstallResult = z.infer<typeof InstallResultSchema>;

/**
 * `install --report` of a run stopped before its manifest was read (missing, or refused with
 * exit 2): the manifest's path, no item, no counter, and the error.
 */
const InstallStoppedEarlySchema = z.strictObject({
  manifest: text,
  items: z.array(z.never()).check(z.maxLength(0)),
  summary: z.strictObject({}),
  complete: z.literal(false),
  error: RunErrorSchema,
});

/** `install --json` and `--report`: the result with its run end, or a stop before the manifest. */
export const InstallDocumentSchema = z.union([
  z.extend(InstallResultSchema, runEnd),
  InstallStoppedEarlySchema,
]);
