import type { SyncItemResult, SyncSummary } from "./types.js";

/**
 * The `summary` of the `packs sync --json` document (cli-contract "JSON documents"):
 * `downloaded` counts `downloaded` and `resumed` items; `up_to_date` counts items confirmed
 * unchanged upstream (`up-to-date`) and items skipped because they are complete in DIR
 * (`skipped` with reason `already complete`); `failed` counts `failed` items. Items skipped by
 * `--dry-run` (would be fetched) and `unavailable` ones are in none of the counts.
 */
export function summarize(items: readonly SyncItemResult[]): SyncSummary {
  const summary: SyncSummary = { downloaded: 0, up_to_date: 0, failed: 0 };
  for (const item of items) {
    if (item.status === "downloaded" || item.status === "resumed") summary.downloaded += 1;
    else if (item.status === "up-to-date") summary.up_to_date += 1;
    else if (item.status === "skipped" && item.reason === "already complete") {
      summary.up_to_date += 1;
    } else if (item.status === "failed") summary.failed += 1;
  }
  return summary;
}

/** Items a `--dry-run` would fetch: skipped with a fetch reason. */
export function wouldFetch(items: readonly SyncItemResult[]): SyncItemResult[] {
  return items.filter(
    (i) =>
      i.status === "skipped" &&
      (i.reason === "new" ||
        i.reason === "missing locally" ||
        i.reason === "size differs" ||
        i.reason === "changed upstream"),
  );
}
