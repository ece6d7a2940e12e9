import { SvcError } from "../errors/svc-error.js";
import { counted } from "../io/plural.js";
import { formatBytes } from "../io/progress-format.js";
import { renderTable } from "../io/table.js";
import { failedItemsHint } from "../run/failure.js";
import type { PlannedItem } from "./plan.js";
import { wouldFetch, wouldTryAuthoring } from "./summary.js";
import type { SyncDocument, SyncItemResult } from "./types.js";

/**
 * Human lines of `packs sync` (cli-contract "Streams and output": all on stderr except the
 * `--dry-run` list, which is the command's data). Plain text: no escape sequences, so cron logs
 * stay clean; the file bar itself is the engine's progress (src/io/progress*.ts).
 */

/** `pack 3/12  low-poly-forest (authoring): new`, printed above the file bar. */
export function itemStartLine(item: PlannedItem, position: number, count: number): string {
  const what = item.action === "revalidate" ? "checking for changes" : item.reason;
  return `pack ${position}/${count}  ${label(item.target)}: ${what}`;
}

/** The line after an item that the engine's progress does not already describe, if any. */
export function itemOutcomeLine(result: SyncItemResult): string | undefined {
  if (result.status === "unavailable") return `  ${label(result)}: no authoring edition`;
  if (result.status === "failed" && result.error)
    return `  ${label(result)}: failed, ${errorFacts(result)}`;
  // --refresh: say why a re-checked pack was fetched again, as --dry-run does
  if (result.reason === "changed upstream")
    return `  ${label(result)}: changed upstream, ${result.status}`;
  return undefined;
}

/**
 * The closing line of a run (or dry run). `progress`, for a run stopped part-way (interrupt,
 * full disk): the pack files planned and started, so that the line counts those stopped
 * part-way and those not started.
 */
export function summaryLine(
  doc: SyncDocument,
  dryRun: boolean,
  progress?: { planned: number; started: number },
): string {
  const counts = countBy(doc.items);
  const files = Math.max(doc.items.length, progress?.planned ?? 0);
  if (dryRun) {
    const fetch = wouldFetch(doc.items);
    const maybe = wouldTryAuthoring(doc.items).length;
    const parts = [`${fetch.length} would be downloaded`];
    if (maybe > 0) {
      parts.push(
        `${counted(maybe, "authoring edition")} would be asked for, if the pack${maybe === 1 ? " has" : "s have"} one`,
      );
    }
    parts.push(`${counts.upToDate} up to date`);
    if (counts.unavailable > 0) parts.push(`${counts.unavailable} without an authoring edition`);
    if (counts.failed > 0) parts.push(`${counts.failed} failed`);
    return `dry run of ${doc.dir}: ${counted(files, "pack file")}, ${parts.join(", ")}; nothing was written`;
  }
  const parts = [`${doc.summary.downloaded} downloaded`, `${doc.summary.up_to_date} up to date`];
  if (counts.unavailable > 0) parts.push(`${counts.unavailable} without an authoring edition`);
  parts.push(`${doc.summary.failed} failed`);
  if (doc.summary.deferred) parts.push(`${doc.summary.deferred} deferred to the next run`);
  if (progress) {
    // an item skipped as complete is settled without being started
    const started = Math.max(progress.started, doc.items.length);
    const stopped = started - doc.items.length;
    if (stopped > 0) parts.push(`${stopped} stopped part-way (partial data kept)`);
    const notStarted = progress.planned - started;
    if (notStarted > 0) parts.push(`${notStarted} not started`);
  }
  if (counts.adopted > 0) parts.push(`${counts.adopted} adopted`);
  if (counts.repaired > 0) parts.push(`${counts.repaired} repaired`);
  const moved = doc.items
    .filter((i) => i.status === "downloaded" || i.status === "resumed" || i.status === "repaired")
    .reduce((n, i) => n + (i.bytes ?? 0), 0);
  const size = moved > 0 ? ` (${formatBytes(moved)})` : "";
  return `sync of ${doc.dir}: ${counted(files, "pack file")}, ${parts.join(", ")}${size}`;
}

/** One line per failed item: slug, edition, code, message, HTTP status, request id. */
export function failureLines(doc: SyncDocument): string[] {
  return doc.items.filter((i) => i.status === "failed" && i.error).map(failureLine);
}

/** The `failed:` line of a failed item (its hint goes on the line under it). */
export function failureLine(item: SyncItemResult): string {
  return `failed: ${label(item)}: ${errorFacts(item)}`;
}

/** The `--dry-run` list for stdout (its lines): what would be fetched and why, or undefined when nothing. */
export function dryRunTable(doc: SyncDocument): string[] | undefined {
  const rows = [...wouldFetch(doc.items), ...wouldTryAuthoring(doc.items)].map((i) => [
    i.slug,
    i.edition,
    i.reason ?? "",
  ]);
  if (rows.length === 0) return undefined;
  return renderTable(["SLUG", "EDITION", "REASON"], rows);
}

/** Most failed items named in the closing error line (the `failed:` lines and `--json` list all). */
const MAX_NAMED = 10;

/**
 * The error that ends a run with failed items: exit 1, code `sync_incomplete`, naming each
 * failed item (the first ten) with its code and request id (cli-contract "Exit codes": 1 = `packs sync`
 * finished with some items failed).
 */
export function incompleteError(doc: SyncDocument): SvcError {
  const failed = doc.items.filter((i) => i.status === "failed");
  const named = failed
    .slice(0, MAX_NAMED)
    .map(
      (i) =>
        `${label(i)} ${i.error?.code ?? "failed"}${i.error?.request_id ? ` (request id ${i.error.request_id})` : ""}`,
    );
  if (failed.length > MAX_NAMED) named.push(`and ${failed.length - MAX_NAMED} more`);
  const list = named.join("; ");
  return new SvcError(
    `${failed.length} of ${counted(doc.items.length, "pack file")} failed: ${list}`,
    {
      code: "sync_incomplete",
      failures: failed.map((i) => ({
        code: i.error?.code ?? "unexpected",
        httpStatus: i.error?.http_status ?? null,
      })),
      hint: failedItemsHint(
        "sync_incomplete",
        failed.map((i) => i.error),
      ),
    },
  );
}

function label(item: { slug: string; edition: string }): string {
  return `${item.slug} (${item.edition})`;
}

function errorFacts(item: SyncItemResult): string {
  const e = item.error;
  if (!e) return "unknown failure";
  const facts = [`code ${e.code}`];
  if (e.http_status !== null) facts.push(`HTTP ${e.http_status}`);
  if (e.request_id !== null) facts.push(`request id ${e.request_id}`);
  return `${e.message} (${facts.join(", ")})`;
}

function countBy(items: readonly SyncItemResult[]): {
  upToDate: number;
  adopted: number;
  repaired: number;
  unavailable: number;
  failed: number;
} {
  const c = { upToDate: 0, adopted: 0, repaired: 0, unavailable: 0, failed: 0 };
  for (const i of items) {
    if (i.status === "up-to-date") c.upToDate += 1;
    else if (i.status === "adopted") c.adopted += 1;
    else if (i.status === "repaired") c.repaired += 1;
    else if (i.status === "unavailable") c.unavailable += 1;
    else if (i.status === "failed") c.failed += 1;
  }
  return c;
}
