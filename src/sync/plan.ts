import { join } from "node:path";
import { lstatIfExists } from "../io/safe-fs.js";
import { checkRecordedFile } from "../outdir/local-file.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { StateItem } from "../outdir/state.js";
import type { FetchReason, SyncReason, SyncTarget } from "./types.js";

/**
 * What a sync does with one target before any download request:
 * - `fetch`: download it (reason `new`, `missing locally`, `size differs`, `changed locally`,
 *   or with `--dry-run` for an authoring edition never seen `authoring edition, if the pack
 *   has one`);
 * - `skip`: complete in DIR (recorded size and mtime, or the recorded SHA-256 after a
 *   re-hash); no request;
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
  /** The state-file record of the item's own file (complete or not), when DIR has one. */
  recorded: StateItem | undefined;
  /** A re-hash found the file intact with another mtime (ms): record it (not in a dry run). */
  restamp?: number;
}

/** Options of {@link planSync}. */
export interface PlanOptions {
  refresh: boolean;
  /** `--checksum`: re-hash every recorded file, whatever its size and mtime. */
  checksum?: boolean;
  /** `--dry-run`: an authoring edition never seen is reported as "if the pack has one". */
  dryRun?: boolean;
  /** Slugs known to have no authoring edition (sync-unavailable.json); ignored with `refresh`. */
  noAuthoring?: ReadonlySet<string> | ReadonlyMap<string, string>;
  /** SIGINT/SIGTERM: ends a re-hash between blocks. */
  signal?: AbortSignal | undefined;
}

/**
 * Plans a sync of `targets` into the directory `out` (its state, read once when it was opened)
 * and one `lstat` per recorded file; a file whose size or mtime differs from its
 * record (every file with `checksum`) is re-hashed (cli-contract "packs sync"). No network. An
 * authoring edition never downloaded and remembered in `noAuthoring` is `unavailable` without
 * a request unless `refresh`. A complete item is skipped, or with `refresh` re-validated; one
 * recorded without an ETag cannot be re-validated and is skipped even with `refresh`.
 */
export async function planSync(
  out: OutputDir,
  targets: readonly SyncTarget[],
  opts: PlanOptions,
): Promise<PlannedItem[]> {
  const plan: PlannedItem[] = [];
  for (const target of targets) plan.push(await planOne(out, target, opts));
  return plan;
}

async function planOne(
  out: OutputDir,
  target: SyncTarget,
  opts: PlanOptions,
): Promise<PlannedItem> {
  if (target.url === undefined) {
    return { target, action: "unavailable", reason: "no authoring edition", recorded: undefined };
  }
  const ref = { kind: "pack" as const, slug: target.slug, edition: target.edition };
  const recorded = out.recorded(ref);
  if (!recorded) {
    if (target.edition === "authoring" && !opts.refresh && opts.noAuthoring?.has(target.slug)) {
      return { target, action: "unavailable", reason: "no authoring edition", recorded };
    }
    const reason: FetchReason =
      target.edition === "authoring" && opts.dryRun === true
        ? "authoring edition, if the pack has one"
        : "new";
    return { target, action: "fetch", reason, recorded };
  }
  const local = await checkRecordedFile(out.dir, recorded, opts.checksum === true, opts.signal);
  if (local.verdict !== "intact") {
    return {
      target,
      action: "fetch",
      reason: fetchReason(out.dir, recorded, local.verdict),
      recorded,
    };
  }
  const canRevalidate = opts.refresh && typeof recorded.etag === "string" && recorded.etag !== "";
  return {
    target,
    action: canRevalidate ? "revalidate" : "skip",
    reason: "already complete",
    recorded,
    ...(local.restamp !== undefined ? { restamp: local.restamp } : {}),
  };
}

function fetchReason(dir: string, rec: StateItem, verdict: "changed" | "missing"): FetchReason {
  if (verdict === "missing") return "missing locally";
  try {
    const st = lstatIfExists(join(dir, rec.file));
    if (st?.isFile() && st.size !== rec.size) return "size differs";
  } catch {
    // reported as changed
  }
  return "changed locally";
}
