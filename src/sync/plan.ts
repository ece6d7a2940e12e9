import { findRecorded, localStatus, type StateFile, type StateItem } from "../download/state.js";
import type { FetchReason, SyncReason, SyncTarget } from "./types.js";

/**
 * What a sync does with one target before any download request:
 * - `fetch`: download it (reason `new`, `missing locally` or `size differs`);
 * - `skip`: complete in DIR per the state file and on disk with the recorded size; no request;
 * - `revalidate`: complete, and `--refresh` asks for one conditional request (`If-None-Match`);
 * - `unavailable`: no authoring edition: the pack record has no URL for it, or an earlier run
 *   learnt from the service (`file_unavailable`) that it has none; no request.
 */
export type PlannedAction = "fetch" | "skip" | "revalidate" | "unavailable";

/** One target with its planned action, the reason, and the complete record when there is one. */
export interface PlannedItem {
  target: SyncTarget;
  action: PlannedAction;
  reason: SyncReason;
  /** The state-file record of the item (complete or not), when DIR has one. */
  recorded: StateItem | undefined;
}

const FETCH_REASON: Record<"new" | "missing" | "size-differs", FetchReason> = {
  new: "new",
  missing: "missing locally",
  "size-differs": "size differs",
};

/**
 * Plans a sync of `targets` into `dir` from the state file alone (`<dir>/.svc-dl/state.json`,
 * read by the caller) and one `stat` per recorded file: no network, no hashing
 * (`svc-dl verify` re-hashes). An authoring edition never downloaded and remembered in
 * `noAuthoring` is `unavailable` without a request unless `refresh`. A complete item is
 * skipped, or with `refresh` re-validated; a
 * complete item recorded without an ETag cannot be re-validated and is skipped even with
 * `refresh` (the spec promises a strong ETag on every download, so this is a corner case).
 */
export function planSync(
  dir: string,
  state: StateFile,
  targets: readonly SyncTarget[],
  opts: {
    refresh: boolean;
    /** Slugs known to have no authoring edition (sync-unavailable.json); ignored with `refresh`. */
    noAuthoring?: ReadonlySet<string> | ReadonlyMap<string, string>;
  },
): PlannedItem[] {
  return targets.map((target): PlannedItem => {
    if (target.url === undefined) {
      return { target, action: "unavailable", reason: "no authoring edition", recorded: undefined };
    }
    const ref = { kind: "pack" as const, slug: target.slug, edition: target.edition };
    const recorded = findRecorded(state, ref);
    const local = localStatus(dir, state, ref);
    if (local === "new" && target.edition === "authoring" && !opts.refresh) {
      if (opts.noAuthoring?.has(target.slug)) {
        return { target, action: "unavailable", reason: "no authoring edition", recorded };
      }
    }
    if (local !== "complete") {
      return { target, action: "fetch", reason: FETCH_REASON[local], recorded };
    }
    const canRevalidate =
      opts.refresh && typeof recorded?.etag === "string" && recorded.etag !== "";
    return {
      target,
      action: canRevalidate ? "revalidate" : "skip",
      reason: "already complete",
      recorded,
    };
  });
}
