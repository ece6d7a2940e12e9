import { ExitCode } from "../errors/exit-codes.js";
import { SvcError } from "../errors/svc-error.js";
import type { InstallDocument, InstallItemResult, InstallSummary, ItemKey } from "./types.js";

/**
 * An install that did not end cleanly. `document` is the `--json` document of the run when
 * items were settled (the CLI prints it before the error, as `packs sync` does); undefined when
 * the run stopped before any item (a lock that does not cover the manifest).
 */
export class InstallError extends SvcError {
  override name = "InstallError";
  readonly document: InstallDocument | undefined;

  constructor(
    message: string,
    init: { code: string; exitCode: number; hint: string; document?: InstallDocument | undefined },
  ) {
    super(message, { code: init.code, exitCode: init.exitCode, hint: init.hint });
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
 * `lock_mismatch` (exit 9, cli-contract "Exit codes"): `install --frozen` found items the lock
 * lacks, or served bytes that differ from it. The message names each item.
 */
export function lockMismatchError(
  lockPath: string,
  problems: readonly string[],
  document?: InstallDocument,
): InstallError {
  return new InstallError(`${lockPath} does not match (lock_mismatch): ${problems.join("; ")}`, {
    code: "lock_mismatch",
    exitCode: ExitCode.lockMismatch,
    hint: "Run `svc-dl install` without --frozen to update svc-dl.lock, review its diff and commit it.",
    document,
  });
}

/** `install_incomplete` (exit 1): some items failed; names each with its code and request id. */
export function installFailedError(doc: InstallDocument): InstallError {
  const failed = doc.items.filter((i) => i.status === "failed");
  const parts = failed.map((i) => {
    const e = i.error;
    const rid = e?.request_id ? `, request id ${e.request_id}` : "";
    return `${describeItem(i)}: ${e?.code ?? "failed"}${rid}`;
  });
  return new InstallError(
    `${failed.length} of ${doc.items.length} item${doc.items.length === 1 ? "" : "s"} failed: ${parts.join("; ")}; svc-dl.lock was not written`,
    {
      code: "install_incomplete",
      exitCode: ExitCode.failure,
      hint: "Fix the failures named above and run `svc-dl install` again; finished items are kept.",
      document: doc,
    },
  );
}

/** The `summary` of the document: counts by status and source. */
export function summarize(items: readonly InstallItemResult[]): InstallSummary {
  const s: InstallSummary = {
    downloaded: 0,
    up_to_date: 0,
    from_cache: 0,
    failed: 0,
    lock_mismatch: 0,
    no_request: 0,
  };
  for (const i of items) {
    if (i.status === "failed") s.failed += 1;
    else if (i.status === "lock-mismatch") s.lock_mismatch += 1;
    else if (i.source === "cache") s.from_cache += 1;
    else if (i.status === "up-to-date" || i.status === "adopted") s.up_to_date += 1;
    else s.downloaded += 1;
    if (i.source === "cache" || i.source === "local") s.no_request += 1;
  }
  return s;
}
