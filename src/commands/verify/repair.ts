import { type DownloadSource, downloadItem } from "../../download/engine.js";
import type { HttpClient } from "../../http/client.js";
import type { FileProgress } from "../../io/progress.js";
import { acquireDirLock } from "../../outdir/lock.js";
import { type ItemRef, readState, type StateItem } from "../../outdir/state.js";
import { type VerifyItem, verifyRecord } from "../../outdir/verify.js";

/** Options of {@link repairItems}. */
export interface RepairOptions {
  dir: string;
  progress: FileProgress;
  /** `--wait-lock` seconds. */
  waitLock: number;
  onNotice?: (line: string) => void;
}

/**
 * The API route that serves an item again (spec "Downloads"): `/v1/packs/{slug}/download`
 * (`?edition=authoring`) or `/v1/assets/{slug}/download`.
 */
export function apiSourceOf(client: HttpClient, item: ItemRef): DownloadSource {
  const slug = encodeURIComponent(item.slug);
  if (item.kind === "asset") return { url: client.apiUrl(`assets/${slug}/download`) };
  return {
    url: client.apiUrl(
      `packs/${slug}/download`,
      item.edition === "authoring" ? { edition: "authoring" } : {},
    ),
  };
}

/**
 * `verify --repair` (cli-contract "verify"): downloads every `changed` or `missing` item again
 * under its recorded name (the record is replaced only by the same item's bytes; the engine
 * checks size, format and SHA-256), with DIR locked, one at a time; then verifies it again.
 * Returns the items in the same order with `repaired` for those that now verify, the new
 * verdict otherwise. Throws the lock's errors, and the engine's for failures that concern every
 * item (account-level API errors, interruption, local file-system errors); an item-level
 * failure leaves that item as it was.
 */
export async function repairItems(
  client: HttpClient,
  items: readonly VerifyItem[],
  opts: RepairOptions,
  onItemError: (item: VerifyItem, err: unknown) => "continue" | "stop",
): Promise<VerifyItem[]> {
  if (!items.some((i) => i.status !== "ok")) return [...items];
  const lock = await acquireDirLock(opts.dir, {
    waitSeconds: opts.waitLock,
    ...(opts.onNotice ? { onWait: opts.onNotice } : {}),
    ...(client.signal ? { signal: client.signal } : {}),
  });
  try {
    const out: VerifyItem[] = [];
    for (const item of items) {
      if (item.status === "ok") {
        out.push(item);
        continue;
      }
      out.push(await repairOne(client, item.record, item, opts, onItemError));
    }
    return out;
  } finally {
    await lock.release();
  }
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
      source: apiSourceOf(client, ref),
      dir: opts.dir,
      fileName: record.file,
      progress: opts.progress,
      lock: false,
      ...(opts.onNotice ? { onNotice: opts.onNotice } : {}),
    });
  } catch (err) {
    if (onItemError(before, err) === "stop") throw err;
    return before;
  }
  // The engine's record (a new SHA-256 if the service's bytes changed since) is the reference.
  const after = await verifyRecord(
    opts.dir,
    readState(opts.dir).items[record.file] ?? record,
    client.signal,
  );
  return after.status === "ok" ? { ...after, status: "repaired" } : after;
}
