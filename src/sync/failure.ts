import { isAccountLevelCode } from "../errors/api-codes.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { InterruptedError } from "../errors/interrupted-error.js";
import { SvcError } from "../errors/svc-error.js";
import type { PackEdition, SyncItemError } from "./types.js";

/**
 * How a sync treats a failure of one item (cli-contract "packs sync"):
 * - `stop`: end the run at once with the error's own exit code;
 * - `unavailable`: not a failure (an authoring edition the pack does not have);
 * - `item`: report it, go on with the next item, end with exit 1.
 */
export type FailureHandling = "stop" | "unavailable" | "item";

/** File-system failures that concern one destination only, not the directory or the disk. */
const ITEM_LEVEL_FS_CODES = new Set(["file_exists", "special_file"]);

/**
 * Classifies an error thrown while syncing one item:
 * - `stop` for account-level API codes (any 401 code, `api_disabled`, `not_eligible`, `blocked`;
 *   src/errors/api-codes.ts `isAccountLevelCode`), and for failures that would hit every later
 *   item the same way: `insufficient_scope` (the key lacks `downloads:read`), `rate_limited`
 *   past `--max-wait`, an interruption (SIGINT/SIGTERM), a local file-system failure other than
 *   `file_exists` and `special_file` (no space, no permission, state file unreadable), and
 *   anything that is not an SvcError (a bug);
 * - `unavailable` for `file_unavailable` on the authoring edition ("no authoring edition");
 * - `item` for everything else (`not_entitled`, `not_found`, `file_unavailable` on the standard
 *   edition, `corrupt_download`, `file_exists`, `special_file`, server or network failure after
 *   retries).
 */
export function classifyFailure(err: unknown, edition: PackEdition): FailureHandling {
  if (!(err instanceof SvcError)) return "stop";
  if (err instanceof InterruptedError) return "stop";
  if (isAccountLevelCode(err.code)) return "stop";
  if (err.code === "insufficient_scope" || err.code === "rate_limited") return "stop";
  if (err instanceof FileSystemError && !ITEM_LEVEL_FS_CODES.has(err.code)) return "stop";
  if (err.code === "file_unavailable" && edition === "authoring") return "unavailable";
  return "item";
}

/** The `error` member of a failed item: code, message, HTTP status and request id (null when none). */
export function itemError(err: SvcError): SyncItemError {
  return {
    code: err.code,
    message: err.message,
    http_status: err.httpStatus,
    request_id: err.requestId,
  };
}
