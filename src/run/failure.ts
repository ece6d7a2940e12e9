import { NO_COMMAND, renderHint, scopeOf } from "../errors/codes.js";
import { SvcError } from "../errors/svc-error.js";
import { counted } from "../io/plural.js";
import type { PackEdition } from "../model.js";

/**
 * How a run over several items treats a failure of one item (cli-contract "packs sync"):
 * - `stop`: end the run at once with the error's own exit code;
 * - `unavailable`: not a failure (an authoring edition the pack does not have);
 * - `item`: report it, go on with the next item, end with exit 1.
 */
export type FailureHandling = "stop" | "unavailable" | "item";

/**
 * Classifies an error thrown while working on one item by the `scope` column of the error
 * table (src/errors/codes.ts): `account` and `run` codes stop the run (a refused key or
 * account, configuration, the disk or the directory, `insufficient_scope`, `rate_limited` past
 * `--max-wait`, an interruption), and so does anything that is not an SvcError (a bug);
 * `file_unavailable` on the authoring edition is `unavailable` ("no authoring edition");
 * every other code fails the item only.
 */
export function classifyFailure(err: unknown, edition: PackEdition): FailureHandling {
  if (!(err instanceof SvcError)) return "stop";
  if (scopeOf(err.code) !== "item") return "stop";
  if (err.code === "file_unavailable" && edition === "authoring") return "unavailable";
  return "item";
}

/**
 * The hint of the error that ends a run with failed items (`sync_incomplete`,
 * `get_incomplete`, `install_incomplete`): the failed items' hint when they all share one, else
 * `N items failed; ` and the outcome's row of the error table, which points at each item's hint.
 */
export function failedItemsHint(
  outcome: "sync_incomplete" | "get_incomplete" | "install_incomplete",
  failed: readonly ({ hint?: string | null } | null | undefined)[],
): string {
  const hints = new Set(failed.map((e) => e?.hint ?? null));
  const [only] = hints;
  if (hints.size === 1 && typeof only === "string") return only;
  const generic = renderHint(outcome, NO_COMMAND) ?? "";
  const n = failed.length;
  return `${counted(n, "item")} failed; ${generic.charAt(0).toLowerCase()}${generic.slice(1)}`;
}
