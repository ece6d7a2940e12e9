import type { DeadlineError } from "../errors/interrupted-error.js";
import { deferredFields } from "../run/deferred.js";
import type { PlannedItem } from "./plan.js";
import type { SyncItemResult } from "./types.js";

/**
 * The result of an item `--max-duration` left for the next run (cli-contract "Operating
 * unattended"; src/run/deferred.ts): `stopped` is the deadline error when the item's download
 * was running at the deadline, absent when it never started.
 */
export function deferredResult(item: PlannedItem, stopped?: DeadlineError): SyncItemResult {
  const { status, ...rest } = deferredFields(stopped);
  return {
    slug: item.target.slug,
    edition: item.target.edition,
    status,
    reason: item.reason,
    ...rest,
  };
}
