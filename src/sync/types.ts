/**
 * Shapes of `packs sync` (cli-contract "packs sync", "JSON documents"). Types only:
 * no runtime code, so command files may import them with `import type`.
 */

import type * as z from "zod/mini";
import type { SyncReasonSchema, SyncResult } from "../documents/runs.js";
import type { PackEdition } from "../model.js";

export type { ItemError } from "../documents/parts.js";
export type { EditionChoice, PackEdition } from "../model.js";

/**
 * Why an item is (or would be) fetched, in the contract's words: `new` (never downloaded into
 * DIR), `missing locally` (recorded, file gone), `size differs` (recorded, file has another
 * size, e.g. truncated), `changed locally` (recorded, same size but other bytes after a
 * re-hash, or no longer a regular file), `changed upstream` (only known with `--refresh`: the
 * service announced a new ETag), `authoring edition, if the pack has one` (`--dry-run` only:
 * an authoring edition not known to exist; not counted as a download).
 */
export type FetchReason = Exclude<SyncReason, KeepReason>;

/**
 * Why an item is not fetched: `already complete` (recorded and on disk with the recorded size
 * and modification time, or the recorded SHA-256 after a re-hash; no request), `unchanged
 * upstream` (`--refresh`: 304 or the same ETag), `no authoring edition` (the pack has none: no
 * `downloads.authoring`, or the service answered `file_unavailable`).
 */
export type KeepReason = "already complete" | "unchanged upstream" | "no authoring edition";

/** The `reason` of an item in the `--json` document (its schema: src/documents/runs.ts). */
export type SyncReason = z.infer<typeof SyncReasonSchema>;

/**
 * The `status` of an item (cli-contract "JSON documents"):
 * - `downloaded` / `resumed`: fetched now (resumed from partial data of an earlier run);
 * - `repaired`: the recorded file had changed locally and was downloaded again;
 * - `adopted`: an unrecorded file in DIR held exactly the served bytes: recorded, untouched;
 * - `up-to-date`: complete in DIR (no request), or checked upstream and unchanged (`--refresh`);
 * - `would-download`: `--dry-run` only: the item a real run would fetch, with the reason why;
 * - `unavailable`: the pack has no authoring edition (not a failure);
 * - `failed`: an item-level failure; `error` says which;
 * - `deferred`: left for the next run by `--max-duration` (not started, or stopped at the
 *   deadline with its partial data kept and `error` `deadline_reached`);
 * - `not-owned` / `would-prune` / `pruned` / `kept-modified`: a recorded file of a pack no longer
 *   owned: listed, would move with `--prune --dry-run`, moved to `.svc-dl/trash/<date>/` with
 *   `--prune`, or kept because its bytes differ from the record (src/sync/prune.ts).
 */
export type SyncStatus = SyncItemResult["status"];

/** One pack edition a sync looks after: the slug, the edition and its URL from the pack record. */
export interface SyncTarget {
  slug: string;
  edition: PackEdition;
  /** `downloads.bundle` or `downloads.authoring` of the pack record, used as given (spec "Pack"); undefined when the record has no such URL. */
  url: string | undefined;
}

/** One item of the `packs sync --json` document (cli-contract "JSON documents"). */
export type SyncItemResult = SyncResult["items"][number];

/** Counts of the `summary` member (see `summarize` in summary.ts). */
export type SyncSummary = SyncResult["summary"];

/**
 * The whole `packs sync --json` document, `{dir, items, summary}` (before the run's end,
 * `complete` and `error`, that src/run/recorder.ts adds); declared by its schema,
 * src/documents/runs.ts `SyncResultSchema`.
 */
export type SyncDocument = SyncResult;
