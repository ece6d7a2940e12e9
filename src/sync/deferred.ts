import type { DeadlineError } from "../errors/interrupted-error.js";
import { itemError } from "./failure.js";
import type { PlannedItem } from "./plan.js";
import type { SyncItemResult } from "./types.js";

/**
 * The result of an item `--max-duration` left for the next run (cli-contract "Operating
 * unattended"): status `deferred`; `stopped` is the deadline error when the item's download was
 * running at the deadline (its partial data is kept), absent when it never started.
 */
export function deferredResult(item: PlannedItem, stopped?: DeadlineError): SyncItemResult {
  return {
    slug: item.target.slug,
    edition: item.target.edition,
    status: "deferred",
    reason: item.reason,
    path: null,
    bytes: null,
    sha256: null,
    error: stopped ? itemError(stopped) : null,
  };
}
