import * as z from "zod/mini";
import {
  count,
  ExtractedSchema,
  edition,
  GetDocumentSchema,
  ItemErrorSchema,
  kind,
  runEnd,
  sha256,
  text,
} from "./parts.js";

/**
 * The documents of runs over several items (cli-contract "Operating unattended"): several-slug
 * `get`, `packs sync`, `verify`, `install`, complete or stopped part-way (src/run/recorder.ts).
 * Each has its result (what the library returns, what the command builds) and its document
 * (the result, then `complete` and, on a stop part-way, `error`).
 */

/** The members of an item `--max-duration` left for the next run (src/run/deferred.ts). */
const deferredItem = {
  status: z.literal("deferred"),
  path: z.null(),
  bytes: z.null(),
  sha256: z.null(),
  /** `deadline_reached` when its download was running at the deadline, null when not started. */
  error: z.nullable(ItemErrorSchema),
};

/**
 * `pack get` / `asset get --json` with several slugs (cli-contract "pack get": several slugs),
 * also their `--report` with one slug: downloaded, failed and (`--max-duration`) deferred
 * items, and the counters (`deferred` with `--max-duration`).
 */
export const GetManyResultSchema = z.strictObject({
  items: z.array(
    z.union([
      GetDocumentSchema,
      z.strictObject({
        kind,
        slug: text,
        edition: z.nullable(edition),
        status: z.literal("failed"),
        error: ItemErrorSchema,
      }),
      z.strictObject({ kind, slug: text, edition: z.nullable(edition), ...deferredItem }),
    ]),
  ),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    deferred: z.optional(count),
  }),
});
/** The several-slug document's items and counters (see {@link GetManyResultSchema}). */
export type GetManyResult = z.infer<typeof GetManyResultSchema>;
/** The several-slug `get --json` document, complete or stopped part-way. */
export const GetManyDocumentSchema = z.extend(GetManyResultSchema, runEnd);
/** The several-slug `get --json` document (see {@link GetManyDocumentSchema}). */
export type GetManyDocument = z.infer<typeof GetManyDocumentSchema>;

/**
 * Why a `packs sync` item was (or would be) fetched, or why not (src/sync/types.ts documents
 * each reason).
 */
export const SyncReasonSchema = z.enum([
  "new",
  "missing locally",
  "size differs",
  "changed locally",
  "changed upstream",
  "authoring edition, if the pack has one",
  "already complete",
  "unchanged upstream",
  "no authoring edition",
]);

/** The `status` of a `packs sync` item (src/sync/types.ts documents each status). */
export const SyncStatusSchema = z.enum([
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
]);

/**
 * One item of `packs sync --json` (src/sync/types.ts), with `extracted` under `--extract`:
 * `deferred` with `--max-duration`; `not-owned`, `would-prune`, `pruned` and `kept-modified`
 * for recorded files of packs no longer owned (cli-contract "Operating unattended").
 */
export const SyncItemSchema = z.strictObject({
  slug: text,
  edition,
  status: SyncStatusSchema,
  /** Why it was (or would be) fetched, or why not; null only when nothing is known. */
  reason: z.nullable(SyncReasonSchema),
  /** Absolute path of the file in DIR, when there is (or was recorded) one. */
  path: z.nullable(text),
  /** File size in bytes, when known. */
  bytes: z.nullable(count),
  /** Lower-case hex SHA-256 of the file, when known. */
  sha256: z.nullable(sha256),
  error: z.nullable(ItemErrorSchema),
  /** `--extract`: where the ZIP was unpacked. */
  extracted: z.optional(ExtractedSchema),
});

/**
 * `packs sync --json` without its run end: `filtered` counts packs left out by
 * `--include`/`--exclude`/`--category` (0 without them); the prune counters appear when above
 * 0, `deferred` with `--max-duration`. What the library's `sync` returns.
 */
export const SyncResultSchema = z.strictObject({
  /** DIR, absolute. */
  dir: text,
  items: z.array(SyncItemSchema),
  summary: z.strictObject({
    downloaded: count,
    up_to_date: count,
    failed: count,
    filtered: count,
    not_owned: z.optional(count),
    would_prune: z.optional(count),
    pruned: z.optional(count),
    kept_modified: z.optional(count),
    deferred: z.optional(count),
    /** A run stopped part-way (interrupt, full disk): planned pack files not started. */
    not_started: z.optional(count),
  }),
});
/** `packs sync --json` without its run end (see {@link SyncResultSchema}). */
export type SyncResult = z.infer<typeof SyncResultSchema>;
/** `packs sync --json`, complete or stopped part-way. */
export const SyncDocumentSchema = z.extend(SyncResultSchema, runEnd);

/** One item of `verify --json` (src/commands/verify/verify.run.ts). */
export const VerifyItemSchema = z.strictObject({
  /** Absolute path of the recorded file. */
  path: text,
  /** The file's verdict (src/model.ts `VerifyStatus` says what each means). */
  status: z.enum(["ok", "changed", "damaged", "missing", "repaired", "forgotten", "deferred"]),
  /** SHA-256 of the file as it is now (lower-case hex); null when missing or not a regular file. */
  sha256: z.nullable(sha256),
  /** With `damaged`: what the format check of cli-contract "Integrity" found. */
  damage: z.optional(text),
  /** Size now in bytes; null when missing. */
  bytes: z.nullable(count),
  kind,
  slug: text,
  edition: z.nullable(edition),
  /** With `--repair`: why the item could not be repaired, or null. */
  error: z.optional(z.nullable(ItemErrorSchema)),
});

/** `verify --json` without its run end (cli-contract "verify"). */
export const VerifyResultSchema = z.strictObject({
  dir: text,
  items: z.array(VerifyItemSchema),
  /** `repaired` with `--repair`, `forgotten` with `--forget-missing`, `deferred` with `--max-duration`. */
  summary: z.strictObject({
    ok: count,
    changed: count,
    /** Files with their recorded bytes that fail the format checks (cli-contract "Integrity"). */
    damaged: count,
    missing: count,
    repaired: z.optional(count),
    forgotten: z.optional(count),
    deferred: z.optional(count),
  }),
});
/** `verify --json` without its run end (see {@link VerifyResultSchema}). */
export type VerifyResult = z.infer<typeof VerifyResultSchema>;
/** `verify --json`, complete or stopped part-way. */
export const VerifyDocumentSchema = z.extend(VerifyResultSchema, runEnd);

/**
 * A file's verdict in `verify` (cli-contract "verify", "Integrity"): `ok` (recorded size and
 * SHA-256, format checks pass); `changed` (other bytes, or not a regular file); `damaged` (the
 * recorded bytes, but a ZIP entry's CRC-32 or size, or the GLB structure, fails); `missing`;
 * `repaired` (downloaded again by `--repair`, then ok); `forgotten` (record dropped by
 * `--forget-missing`); `deferred` (not hashed or repaired before `--max-duration` ended the run).
 */
export type VerifyStatus = VerifyDocumentItem["status"];

/** One item of the `verify --json` document (see {@link VerifyItemSchema}). */
export type VerifyDocumentItem = VerifyResult["items"][number];

/** Counts of the `verify --json` summary (`repaired`, `forgotten`, `deferred` with their options). */
export type VerifySummary = VerifyResult["summary"];

/**
 * The `verify --json` document (cli-contract "JSON documents"): DIR (absolute), one item per
 * recorded file in file-name order, and the counts. Every file ended `ok`, `repaired` or
 * `forgotten` exactly when `changed`, `damaged` and `missing` are all 0.
 */
export type VerifyDocument = VerifyResult;
