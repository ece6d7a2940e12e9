import { ExitCode } from "../exit-codes.js";
import { type CodeEntry, outcome } from "./entry.js";
import { AGAIN, WRITES_FILES } from "./hints.js";

/**
 * The rows of the outcome of a whole run (cli-contract "packs sync", "install", "Exit codes"):
 * incomplete runs, a lock that does not match, the prune limit, an interruption, the deadline.
 */
export const OUTCOME_ROWS = {
  lock_mismatch: {
    exitCode: ExitCode.lockMismatch,
    retryable: false,
    scope: "run",
    // `missingItems`: the lock lacks items of the manifest; `slugs`: the items whose bytes differ
    hint: (_c, d) =>
      d.missingItems
        ? "Run `svc-dl install` (without --frozen) to add the new items to svc-dl.lock, review its diff and commit it."
        : `If the change is expected, run \`svc-dl install --update${d.slugs ? ` ${d.slugs}` : ""}\` to record the new files in svc-dl.lock, review its diff and commit it.`,
  },
  prune_limit: outcome(
    ExitCode.failure,
    (c) =>
      c.has("--max-delete")
        ? "Check the list with --prune --dry-run, then raise --max-delete N if these packs really are gone."
        : "Check what would move with a dry run, then allow more files to move if these packs really are gone.",
    false,
  ),
  sync_incomplete: outcome(
    ExitCode.failure,
    "Follow each failed item's hint, then run the same command again: it fetches only what is still missing.",
    "items",
  ),
  get_incomplete: outcome(
    ExitCode.failure,
    "Follow each failed item's hint, then run the same command again: finished items are not fetched again.",
    "items",
  ),
  install_incomplete: outcome(
    ExitCode.failure,
    "Follow each failed item's hint, then run the same command again: finished items are kept; svc-dl.lock is written once every item is in place.",
    "items",
  ),
  interrupted: {
    // SIGTERM's 143 is chosen by InterruptedError from the signal
    exitCode: ExitCode.sigint,
    retryable: true,
    scope: "run",
    // Only commands that write files keep partial data to resume from.
    hint: (c) =>
      c.command === "" || WRITES_FILES.has(c.command) ? AGAIN : "Run the same command again.",
  },
  deadline_reached: outcome(
    ExitCode.deadline,
    "Partial data kept: the next run goes on where this one stopped (items not started are reported deferred); raise --max-duration to finish in one run.",
    true,
  ),
  aborted: outcome(
    ExitCode.sigint,
    "Call again with the same arguments: it resumes from the bytes already saved.",
    true,
  ),
  cancelled: outcome(ExitCode.sigint, null, false),
  unexpected: outcome(
    ExitCode.failure,
    "Run again with --verbose for details, and report it if it persists.",
    false,
  ),
} as const satisfies Record<string, CodeEntry>;
