import { z } from "zod";
import {
  count,
  edition,
  extracted,
  GetDocumentSchema,
  ItemErrorSchema,
  kind,
  sha256,
} from "./parts.js";

/**
 * The documents of runs over several items (cli-contract "Operating unattended"): several-slug
 * `get`, `packs sync`, `verify`, `install`, complete or stopped part-way (src/run/recorder.ts).
 */

/**
 * The `error` of a run document that stopped part-way (cli-contract "Operating unattended",
 * `--report`; src/run/error.ts): the `--json` error line's fields but `http_status`.
 */
export const RunErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string().min(1),
  request_id: z.string().nullable(),
  retryable: z.boolean(),
  hint: z.string().nullable(),
});

/**
 * The end of a run document (cli-contract "Operating unattended"; src/run/recorder.ts):
 * `complete` (false when the run stopped part-way) and, on such a stop, `error`.
 */
const runEnd = { complete: z.boolean(), error: RunErrorSchema.optional() };

/** The members of an item `--max-duration` left for the next run (src/run/deferred.ts). */
const deferredItem = {
  status: z.literal("deferred"),
  path: z.null(),
  bytes: z.null(),
  sha256: z.null(),
  /** `deadline_reached` when its download was running at the deadline, null when not started. */
  error: ItemErrorSchema.nullable(),
};

/**
 * `pack get` / `asset get --json` with several slugs (cli-contract "pack get": several slugs),
 * also their `--report` with one slug: downloaded, failed and (`--max-duration`) deferred items.
 */
export const GetManyDocumentSchema = z.strictObject({
  items: z.array(
    z.union([
      GetDocumentSchema,
      z.strictObject({
        kind,
        slug: z.string().min(1),
        edition: edition.nullable(),
        status: z.literal("failed"),
        error: ItemErrorSchema,
      }),
      z.strictObject({
        kind,
        slug: z.string().min(1),
        edition: edition.nullable(),
        ...deferredItem,
      }),
    ]),
  ),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    deferred: count.optional(),
  }),
  ...runEnd,
});

/**
 * One item of `packs sync --json` (src/sync/types.ts), with `extracted` under `--extract`:
 * `deferred` with `--max-duration`; `not-owned`, `would-prune`, `pruned` and `kept-modified`
 * for recorded files of packs no longer owned (cli-contract "Operating unattended").
 */
export const SyncItemSchema = z.strictObject({
  slug: z.string().min(1),
  edition,
  status: z.enum([
    "downloaded",
    "resumed",
    "repaired",
    "adopted",
    "up-to-date",
    "would-download",
    "unavailable",
    "failed",
    "deferred",
    "not-owned",
    "would-prune",
    "pruned",
    "kept-modified",
  ]),
  /** Why it was (or would be) fetched, or why not (src/sync/types.ts `SyncReason`). */
  reason: z
    .enum([
      "new",
      "missing locally",
      "size differs",
      "changed locally",
      "changed upstream",
      "authoring edition, if the pack has one",
      "already complete",
      "unchanged upstream",
      "no authoring edition",
    ])
    .nullable(),
  path: z.string().min(1).nullable(),
  bytes: count.nullable(),
  sha256: sha256.nullable(),
  error: ItemErrorSchema.nullable(),
  /** `--extract`: where the ZIP was unpacked. */
  extracted: extracted.optional(),
});

/**
 * `packs sync --json`: `filtered` counts packs left out by `--include`/`--exclude`/`--category`
 * (0 without them); the prune counters appear when above 0, `deferred` with `--max-duration`.
 */
export const SyncDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  items: z.array(SyncItemSchema),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    filtered: count,
    not_owned: count.optional(),
    would_prune: count.optional(),
    pruned: count.optional(),
    kept_modified: count.optional(),
    deferred: count.optional(),
  }),
  ...runEnd,
});

/** `verify --json` (cli-contract "verify"; src/verify/document.ts). */
export const VerifyDocumentSchema = z.strictObject({
  dir: z.string().min(1),
  items: z.array(
    z.strictObject({
      path: z.string().min(1),
      status: z.enum(["ok", "changed", "damaged", "missing", "repaired", "forgotten", "deferred"]),
      sha256: sha256.nullable(),
      /** With `damaged`: what the format check of cli-contract "Integrity" found. */
      damage: z.string().min(1).optional(),
      bytes: count.nullable(),
      kind,
      slug: z.string().min(1),
      edition: edition.nullable(),
      /** With `--repair`: why the item could not be repaired, or null. */
      error: ItemErrorSchema.nullable().optional(),
    }),
  ),
  summary: z.strictObject({
    ok: count,
    changed: count,
    damaged: count,
    missing: count,
    repaired: count.optional(),
    forgotten: count.optional(),
    deferred: count.optional(),
  }),
  ...runEnd,
});

/** The facts of a `svc-dl.lock` entry, as `lock_changes` shows them before and after. */
const LockFactsSchema = z.strictObject({
  file: z.string().min(1),
  size: count,
  etag: z.string().nullable(),
  sha256,
});

/**
 * `install --json` (cli-contract "Manifest, lock and cache"; src/install/types.ts): items as in
 * `packs sync` plus `kind` and `source` (null for a failed or deferred item), the statuses
 * `cached`, `lock-mismatch` and (`--max-duration`) `deferred`, and `lock_changes` (the lock
 * entries the run added, removed or updated).
 */
const InstallRunDocumentSchema = z.strictObject({
  manifest: z.string().min(1),
  lock: z.string().min(1),
  dir: z.string().min(1),
  items: z.array(
    SyncItemSchema.extend({
      kind,
      edition: edition.nullable(),
      status: z.enum([
        "downloaded",
        "cached",
        "resumed",
        "up-to-date",
        "adopted",
        "repaired",
        "lock-mismatch",
        "deferred",
        "failed",
      ]),
      /** Where the bytes came from, or what went wrong, in words. */
      reason: z.string().min(1).nullable(),
      source: z.enum(["cache", "network", "local"]).nullable(),
    }),
  ),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    from_cache: count,
    failed: count,
    lock_mismatch: count,
    no_request: count,
    deferred: count.optional(),
  }),
  lock_changes: z.array(
    z.strictObject({
      kind,
      slug: z.string().min(1),
      edition: edition.nullable(),
      change: z.enum(["added", "removed", "updated"]),
      before: LockFactsSchema.nullable(),
      after: LockFactsSchema.nullable(),
    }),
  ),
  ...runEnd,
});

/**
 * `install --report` of a run stopped before its manifest was read (missing, or refused with
 * exit 2): the manifest's path, no item, no counter, and the error.
 */
const InstallStoppedEarlySchema = z.strictObject({
  manifest: z.string().min(1),
  items: z.array(z.never()).max(0),
  summary: z.strictObject({}),
  complete: z.literal(false),
  error: RunErrorSchema,
});

/** `install --json` and `--report` (see the two shapes above). */
export const InstallDocumentSchema = z.union([InstallRunDocumentSchema, InstallStoppedEarlySchema]);
