import { pruneCounts } from "./prune.js";
import type { SyncDocument, SyncItemResult, SyncSummary } from "./types.js";

/**
 * The `summary` of the `packs sync --json` document (cli-contract "JSON documents"):
 * `downloaded` counts files fetched into place (`downloaded`, `resumed`, `repaired`);
 * `up_to_date` counts items already right in DIR (`up-to-date`, and `adopted` files that held
 * the served bytes); `failed` counts `failed` items. `would-download` (dry run) and
 * `unavailable` items are in none of the counts.
 */
export function summarize(
  items: readonly SyncItemResult[],
): Pick<SyncSummary, "downloaded" | "up_to_date" | "failed"> {
  const summary = { downloaded: 0, up_to_date: 0, failed: 0 };
  for (const item of items) {
    if (item.status === "downloaded" || item.status === "resumed" || item.status === "repaired") {
      summary.downloaded += 1;
    } else if (item.status === "up-to-date" || item.status === "adopted") {
      summary.up_to_date += 1;
    } else if (item.status === "failed") summary.failed += 1;
  }
  return summary;
}

/**
 * The `packs sync --json` document over `items`, for a complete run and one stopped part-way
 * alike: {@link summarize}'s counts, `filtered` (packs the selection left out), the prune
 * statuses' counts (`not_owned`, `pruned`…), with `--max-duration` (`deadline`) `deferred`,
 * and for a run stopped part-way (`notStarted` above 0) `not_started`.
 */
export function syncDocument(
  dir: string,
  items: SyncItemResult[],
  facts: { filtered: number; deadline: boolean; notStarted?: number },
): SyncDocument {
  const deferred = items.filter((i) => i.status === "deferred").length;
  const notStarted = facts.notStarted ?? 0;
  return {
    dir,
    items,
    summary: {
      ...summarize(items),
      filtered: facts.filtered,
      ...pruneCounts(items),
      ...(facts.deadline ? { deferred } : {}),
      ...(notStarted > 0 ? { not_started: notStarted } : {}),
    },
  };
}

/** The dry-run reason of an authoring edition not known to exist (not counted as a download). */
export const AUTHORING_IF_ANY = "authoring edition, if the pack has one";

/** Items a `--dry-run` would fetch for sure (an authoring edition not known to exist excluded). */
export function wouldFetch(items: readonly SyncItemResult[]): SyncItemResult[] {
  return items.filter((i) => i.status === "would-download" && i.reason !== AUTHORING_IF_ANY);
}

/** Authoring editions a `--dry-run` would ask for, if the packs have them. */
export function wouldTryAuthoring(items: readonly SyncItemResult[]): SyncItemResult[] {
  return items.filter((i) => i.status === "would-download" && i.reason === AUTHORING_IF_ANY);
}
