import type { CodedFailure, ErrorCode, HintDetail } from "../errors/codes.js";
import { SvcError } from "../errors/svc-error.js";
import { counted } from "../io/plural.js";
import { failedItemsHint } from "../run/failure.js";
import { lockPathFor } from "./lockfile.js";
import type {
  InstallDocument,
  InstallItemRef,
  InstallItemResult,
  InstallSummary,
  ItemKey,
} from "./types.js";

/**
 * An install that did not end cleanly. `document` is the `--json` document of the run when
 * there is one (the CLI prints it before the error, as `packs sync` does).
 */
export class InstallError extends SvcError {
  override name = "InstallError";
  readonly document: InstallDocument | undefined;

  constructor(
    message: string,
    init: {
      code: ErrorCode;
      hint?: string;
      detail?: HintDetail;
      failures?: readonly CodedFailure[];
      document?: InstallDocument | undefined;
    },
  ) {
    super(message, {
      code: init.code,
      hint: init.hint,
      detail: init.detail ?? {},
      failures: init.failures ?? [],
    });
    this.document = init.document;
  }
}

/** `pack forest-pack (standard)`, `asset free-sample-cube`. */
export function describeItem(item: ItemKey): string {
  return item.kind === "pack"
    ? `pack ${item.slug} (${item.edition ?? "standard"})`
    : `asset ${item.slug}`;
}

/**
 * `lock_mismatch` (exit 9, cli-contract "Manifest, lock and cache"): `install --frozen` found
 * manifest items that `svc-dl.lock` lacks (no request was made). The message says so and names
 * each item with its JSON path; the hint is the run that adds them (`svc-dl install`).
 */
export function lockLacksItemsError(
  lockPath: string,
  missing: readonly InstallItemRef[],
  document: InstallDocument,
): InstallError {
  const names = missing.map((i) => `${describeItem(i)} (${i.jsonPath})`);
  return new InstallError(
    `${lockPath} does not cover the manifest (lock_mismatch): ${names.join("; ")} ${missing.length === 1 ? "is" : "are"} not in svc-dl.lock`,
    {
      code: "lock_mismatch",
      detail: { missingItems: true },
      document,
    },
  );
}

/**
 * `lock_mismatch` (exit 9): the bytes of some items (served, cached or in `dir`) differ from
 * their lock entries. The message names each item and the differing field; the hint is the
 * command that accepts the new bytes: `svc-dl install --update SLUG…`.
 */
export function lockMismatchError(
  lockPath: string,
  mismatched: readonly InstallItemResult[],
  document: InstallDocument,
): InstallError {
  const problems = mismatched.map((i) => `${describeItem(i)}: ${i.reason ?? "differs"}`);
  const slugs = [...new Set(mismatched.map((i) => i.slug))].join(" ");
  return new InstallError(`files differ from ${lockPath} (lock_mismatch): ${problems.join("; ")}`, {
    code: "lock_mismatch",
    detail: { slugs },
    document,
  });
}

/**
 * `install_incomplete` (exit 1): some items failed; names each with its code and request id;
 * the hint is theirs when they share one, else it points at each item's hint.
 */
export function installFailedError(doc: InstallDocument): InstallError {
  const failed = doc.items.filter((i) => i.status === "failed");
  if (failed.length > 0 && failed.every((i) => i.error?.code === "offline")) {
    return offlineInstallError(doc, failed);
  }
  const parts = failed.map((i) => {
    const e = i.error;
    const rid = e?.request_id ? `, request id ${e.request_id}` : "";
    return `${describeItem(i)}: ${e?.code ?? "failed"}${rid}`;
  });
  return new InstallError(
    `${failed.length} of ${counted(doc.items.length, "item")} failed: ${parts.join("; ")}; svc-dl.lock was not written`,
    {
      code: "install_incomplete",
      hint: failedItemsHint(
        "install_incomplete",
        failed.map((i) => i.error),
      ),
      failures: failed.map((i) => ({
        code: i.error?.code ?? "unexpected",
        httpStatus: i.error?.http_status ?? null,
      })),
      document: doc,
    },
  );
}

/**
 * `offline` (exit 8; cli-contract "Manifest, lock and cache"): every failed item needed the
 * network under `--offline`; the message names each of them.
 */
function offlineInstallError(
  doc: InstallDocument,
  failed: readonly InstallItemResult[],
): InstallError {
  return new InstallError(
    `${failed.length} of ${counted(doc.items.length, "item")} would need the network, which --offline forbids: ${failed.map(describeItem).join("; ")}; svc-dl.lock was not written`,
    { code: "offline", document: doc },
  );
}

/**
 * The `install --json` document over `items`, for a complete run and one stopped part-way
 * alike: `lock` beside the manifest, {@link summarize}'s counts (`deferred` with
 * `--max-duration`: `deadline`), `lock_changes` empty (the caller fills it once the lock is
 * written).
 */
export function installDocument(
  manifest: { path: string; dir: string },
  items: InstallItemResult[],
  facts: { deadline: boolean },
): InstallDocument {
  return {
    manifest: manifest.path,
    lock: lockPathFor(manifest.path),
    dir: manifest.dir,
    items,
    summary: summarize(items, facts.deadline),
    lock_changes: [],
  };
}

/**
 * The `summary` of the document: counts by status and source; with `deadline` (the run had
 * `--max-duration`) also `deferred`, the items left for the next run.
 */
export function summarize(items: readonly InstallItemResult[], deadline = false): InstallSummary {
  const s: InstallSummary = {
    downloaded: 0,
    up_to_date: 0,
    from_cache: 0,
    failed: 0,
    lock_mismatch: 0,
    no_request: 0,
    ...(deadline ? { deferred: 0 } : {}),
  };
  for (const i of items) {
    if (i.status === "failed") s.failed += 1;
    else if (i.status === "deferred") s.deferred = (s.deferred ?? 0) + 1;
    else if (i.status === "lock-mismatch") s.lock_mismatch += 1;
    else if (i.source === "cache") s.from_cache += 1;
    else if (i.status === "up-to-date" || i.status === "adopted") s.up_to_date += 1;
    else s.downloaded += 1;
    if (i.source === "cache" || i.source === "local") s.no_request += 1;
  }
  return s;
}
