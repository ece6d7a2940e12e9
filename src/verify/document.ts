import { join } from "node:path";
import type { ItemError } from "../documents/parts.js";
import type { VerifyDocument, VerifyDocumentItem, VerifySummary } from "../documents/runs.js";
import type { StateItem } from "../outdir/state.js";
import type { VerifyItem } from "../outdir/verify.js";

/** What shapes the document: `--repair`, `--forget-missing`, and a `--max-duration` window. */
export interface VerifyDocumentFacts {
  repair?: boolean | undefined;
  forgetMissing?: boolean | undefined;
  deadline?: boolean | undefined;
}

/**
 * The `verify --json` document (cli-contract "JSON documents"): `{"dir","items":[{"path",
 * "status","sha256", "bytes","kind","slug","edition"}],"summary":{"ok","changed","missing"}}`,
 * the summary with `repaired` under `--repair`, `forgotten` under `--forget-missing` and
 * `deferred` under `--max-duration` (`deadline`).
 */
export function verifyDocument(
  dir: string,
  items: VerifyDocumentItem[],
  facts: VerifyDocumentFacts,
): VerifyDocument {
  const summary: VerifySummary = { ok: 0, changed: 0, damaged: 0, missing: 0 };
  if (facts.repair === true) summary.repaired = 0;
  if (facts.forgetMissing === true) summary.forgotten = 0;
  if (facts.deadline === true) summary.deferred = 0;
  for (const { status } of items) summary[status] = (summary[status] ?? 0) + 1;
  return { dir, items, summary };
}

/** The files of a verify document that did not end `ok` or `repaired` (changed, damaged, missing). */
export function notOk(doc: Pick<VerifyDocument, "summary">): number {
  return doc.summary.changed + doc.summary.damaged + doc.summary.missing;
}

/** The document item of `i`; with `failed` (`--repair`), its `error` (null when none). */
export function toDocumentItem(
  i: VerifyItem,
  failed: ReadonlyMap<string, ItemError> | undefined,
): VerifyDocumentItem {
  const { kind, slug, edition } = i.record;
  const found = { path: i.path, status: i.status, sha256: i.sha256, bytes: i.bytes };
  const item = { ...found, ...(i.damage !== undefined ? { damage: i.damage } : {}), kind, slug };
  return failed ? { ...item, edition, error: failed.get(i.path) ?? null } : { ...item, edition };
}

/**
 * A recorded file `--max-duration` left for the next run; with `--repair`, `error` is the
 * deadline error when its repair was running at the deadline, null when it never started.
 */
export function deferredItem(
  dir: string,
  record: StateItem,
  error?: ItemError | null,
): VerifyDocumentItem {
  const { kind, slug, edition } = record;
  const path = join(dir, record.file);
  const item = { path, status: "deferred" as const, sha256: null, bytes: null, kind, slug };
  return error === undefined ? { ...item, edition } : { ...item, edition, error };
}
