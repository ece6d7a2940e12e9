import { API_ROWS } from "./code-table/api-rows.js";
import type { CodeEntry, HintContext, HintDetail, Scope } from "./code-table/entry.js";
import { LOCAL_ROWS } from "./code-table/local-rows.js";
import { NETWORK_ROWS } from "./code-table/network-rows.js";
import { OUTCOME_ROWS } from "./code-table/outcome-rows.js";
import { USAGE_ROWS } from "./code-table/usage-rows.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";

export type { CodeEntry, Hint, HintContext, HintDetail, Scope } from "./code-table/entry.js";

/**
 * The one error table (cli-contract "Exit codes", spec "Errors"): every API error code and every
 * local code svc-dl reports → its exit code, whether running again later may succeed
 * (`retryable`, the `--json` error line's field), its scope (whether it stops a run over several
 * items or fails one item), and the generic hint, rendered for the command at hand so that it
 * names only commands and flags that exist, from the facts the thrower passes (`detail`: a path,
 * a file name). A thrower gives its own prose hint only where no row can know the situation;
 * test/errors/site-hints.test.ts lists those places, each with its reason.
 *
 * The rows live by concept in src/errors/code-table/ (the spec's API codes, the network and
 * answers that break the spec, usage and configuration, the local file system, the outcome of a
 * run), with the row shape and constructors (`entry.ts`) and the hint pieces they share
 * (`hints.ts`); this module joins them and is the one the rest of svc-dl imports.
 */

/**
 * The table. Keys are the stable `code` values of errors (API and local); no code is in two row
 * files (test/errors/code-table.test.ts).
 */
export const CODES = {
  ...API_ROWS,
  ...NETWORK_ROWS,
  ...USAGE_ROWS,
  ...LOCAL_ROWS,
  ...OUTCOME_ROWS,
} as const satisfies Record<string, CodeEntry>;

/** Every code of the table: the `code` of every error svc-dl throws (exported from the package). */
export type ErrorCode = keyof typeof CODES;

declare const unlisted: unique symbol;
/**
 * An error code a service sent that the spec does not list (spec "Errors"), kept as sent so the
 * message names it; made only by {@link serviceCode}. Its exit code and `retryable` follow the
 * HTTP status; it fails one item.
 */
export type UnlistedApiCode = string & { readonly [unlisted]: true };

/** True when `code` is a row of the table. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(CODES, code);
}

/** A code received from a service: the table's row when it has one, else kept as unlisted. */
export function serviceCode(code: string): ErrorCode | UnlistedApiCode {
  return isErrorCode(code) ? code : (code as UnlistedApiCode);
}

/** The table row of a code, or undefined for an unlisted service code. */
export function codeEntry(code: string): CodeEntry | undefined {
  return isErrorCode(code) ? CODES[code] : undefined;
}

/**
 * Exit code for a code; unlisted service codes (and `legacy_denied`) go by the HTTP status: 401 → auth,
 * 403 → forbidden, 404/410 → not found, 429 → rate limited, else network.
 */
export function exitCodeFor(code: string, httpStatus: number | null): ExitCodeValue {
  const entry = codeEntry(code);
  if (entry && entry.exitCode !== "status") return entry.exitCode;
  if (httpStatus === 401) return ExitCode.auth;
  if (httpStatus === 403) return ExitCode.forbidden;
  if (httpStatus === 404 || httpStatus === 410) return ExitCode.notFound;
  if (httpStatus === 429) return ExitCode.rateLimited;
  return httpStatus === null ? ExitCode.failure : ExitCode.network;
}

/** A failure counted in a run's outcome: its code and HTTP status. */
export interface CodedFailure {
  readonly code: string;
  readonly httpStatus: number | null;
}

/**
 * Whether running again later may succeed; unlisted codes: true for 429 and 5xx answers. For
 * the outcome of a run (`"items"` in the table), true when any of `failures` is retryable.
 */
export function isRetryable(
  code: string,
  httpStatus: number | null,
  failures: readonly CodedFailure[] = [],
): boolean {
  const entry = codeEntry(code);
  if (entry === undefined) return httpStatus === 429 || (httpStatus !== null && httpStatus >= 500);
  if (entry.retryable !== "items") return entry.retryable;
  return failures.some((f) => isRetryable(f.code, f.httpStatus));
}

/** The scope of a code (see {@link Scope}); unlisted service codes fail one item. */
export function scopeOf(code: string): Scope {
  return codeEntry(code)?.scope ?? "item";
}

/**
 * The table's hint for a code, rendered for the command at hand and the thrower's facts
 * (`detail`, default none); null for unlisted codes and when there is no next step. A hint
 * given at the throw site wins over this one (`format.ts` `hintFor`).
 */
export function renderHint(code: string, c: HintContext, detail: HintDetail = {}): string | null {
  const hint = codeEntry(code)?.hint;
  if (hint === undefined || hint === null) return null;
  return typeof hint === "string" ? hint : hint(c, detail);
}

/** A context for hints outside any command (the library): no flags, no optional commands. */
export const NO_COMMAND: HintContext = {
  command: "",
  has: () => false,
  exists: () => false,
  given: () => false,
};

/** The spec's API error codes the table knows (spec "Errors"). */
export const KNOWN_API_CODES: readonly ErrorCode[] = [
  "missing_api_key",
  "invalid_api_key",
  "revoked_api_key",
  "expired_api_key",
  "api_disabled",
  "not_eligible",
  "blocked",
  "insufficient_scope",
  "not_entitled",
  "not_found",
  "file_unavailable",
  "range_not_satisfiable",
  "rate_limited",
  "internal_error",
];
