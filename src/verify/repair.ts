import { routeSource } from "../api/download-source.js";
import { downloadItem } from "../download/engine.js";
import type { HttpClient } from "../http/client.js";
import type { FileProgress } from "../io/progress.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { ItemRef, StateItem } from "../outdir/state.js";
import { type VerifyItem, verifyRecord } from "../outdir/verify.js";

/** Options of {@link repairItems}. */
export interface RepairOptions {
  /** DIR, opened and locked by the caller. */
  out: OutputDir;
  progress: FileProgress;
  onNotice?: (line: string) => void;
  /** The run's abort signal: a download and a re-hash stop at it. */
  signal?: AbortSignal | undefined;
  /** Called before each repair starts; throws to start no more (the `--max-duration` gate). */
  beforeRepair?: () => void;
}

/**
 * `verify --repair` (cli-contract "verify"): downloads every `changed`, `damaged` or `missing`
 * item again, unconditionally (no size+mtime shortcut, no revalidation), under its recorded name (the record is replaced only by the same item's bytes; the engine
 * checks size, format and SHA-256), one at a time; then verifies it again. Returns the items in
 * the same order with `repaired` for those that now verify, the new verdict otherwise. Throws
 * the engine's errors for failures that concern every item (account-level API errors,
 * interruption, the deadline, local file-system errors) and what `beforeRepair` throws; an
 * item-level failure leaves that item as it was. `done` receives each item once it is final, in
 * order, so that after a throw `done[done.length]` is the item that was being repaired.
 */
export async function repairItems(
  client: HttpClient,
  items: readonly VerifyItem[],
  opts: RepairOptions,
  onItemError: (item: VerifyItem, err: unknown) => "continue" | "stop",
  done: VerifyItem[] = [],
): Promise<VerifyItem[]> {
  for (const item of items) {
    if (item.status === "ok") {
      done.push(item);
      continue;
    }
    opts.beforeRepair?.();
    done.push(await repairOne(client, item.record, item, opts, onItemError));
  }
  return done;
}

async function repairOne(
  client: HttpClient,
  record: StateItem,
  before: VerifyItem,
  opts: RepairOptions,
  onItemError: (item: VerifyItem, err: unknown) => "continue" | "stop",
): Promise<VerifyItem> {
  const ref: ItemRef = { kind: record.kind, slug: record.slug, edition: record.edition };
  try {
    await downloadItem(client, {
      ...ref,
      source: routeSource(client, ref),
      out: opts.out,
      fileName: record.file,
      // downloaded again whatever its size and mtime say (cli-contract "verify"): the recorded
      // bytes may be the damaged ones
      force: true,
      progress: opts.progress,
      ...(opts.onNotice ? { onNotice: opts.onNotice } : {}),
      signal: opts.signal,
    });
  } catch (err) {
    if (onItemError(before, err) === "stop") throw err;
    return before;
  }
  // The engine's record (a new SHA-256 if the service's bytes changed since) is the reference.
  const after = await verifyRecord(
    opts.out.dir,
    opts.out.recordedAt(record.file) ?? record,
    opts.signal,
  );
  return after.status === "ok" ? { ...after, status: "repaired" } : after;
}
