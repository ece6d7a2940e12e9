/**
 * The one table that maps the spec's error codes (spec "Errors") to the contract's exit codes
 * (cli-contract "Exit codes") and to what the user should do next.
 */
interface CodeEntry {
  readonly exitCode: number;
  readonly hint: string;
}

const KEYS_PAGE = "Account › Connections › API keys";

const TABLE: Readonly<Record<string, CodeEntry>> = {
  missing_api_key: {
    exitCode: 3,
    hint: "Set SVC_API_KEY or run `svc-dl auth login` to store a key for this service.",
  },
  invalid_api_key: {
    exitCode: 3,
    hint: `Check the key (it starts with svc_live_ and must be sent whole) or create a new one under ${KEYS_PAGE}. A license key (SVC_…) is not an API key: use \`svc-dl legacy get\`.`,
  },
  revoked_api_key: {
    exitCode: 3,
    hint: `This key was revoked. Create a new key under ${KEYS_PAGE}, then run \`svc-dl auth login\`.`,
  },
  expired_api_key: {
    exitCode: 3,
    hint: `This key has expired. Create a new key under ${KEYS_PAGE}, then run \`svc-dl auth login\`.`,
  },
  api_disabled: {
    exitCode: 4,
    hint: "API access is switched off for this account right now; try again later or contact support with the request id.",
  },
  not_eligible: {
    exitCode: 4,
    hint: "API access needs a purchase (a pack or lifetime access) on this account.",
  },
  blocked: {
    exitCode: 4,
    hint: "The service gives no detail for this refusal; contact support and quote the request id.",
  },
  insufficient_scope: {
    exitCode: 4,
    hint: `The key lacks the scope this needs (downloads need downloads:read, the catalog needs catalog:read). Scopes cannot be edited: create a new key with the scope under ${KEYS_PAGE}.`,
  },
  not_entitled: {
    exitCode: 4,
    hint: "This item is not among the account's purchases (or its order is not paid); `svc-dl packs list` shows the packs you own, `svc-dl assets list` the assets.",
  },
  not_found: {
    exitCode: 5,
    hint: "No such published item; check the slug with `svc-dl packs list` (packs) or `svc-dl assets list` (assets).",
  },
  file_unavailable: {
    exitCode: 5,
    hint: "The item exists but this file does not (for example no authoring edition); try without --edition.",
  },
  range_not_satisfiable: {
    exitCode: 7,
    hint: "The service refused the resume range; run again with --force to start over.",
  },
  rate_limited: {
    exitCode: 6,
    hint: "Too many requests; wait and retry later, or raise --max-wait.",
  },
  internal_error: {
    exitCode: 7,
    hint: "The service failed; try again later and quote the request id if it persists.",
  },
};

/**
 * Exit code for an API error code; unknown codes fall back on the HTTP status
 * (401 → 3, 403 → 4, 404/410 → 5, 429 → 6, else 7).
 */
export function exitCodeForApiCode(code: string, httpStatus: number): number {
  const entry = TABLE[code];
  if (entry) return entry.exitCode;
  if (httpStatus === 401) return 3;
  if (httpStatus === 403) return 4;
  if (httpStatus === 404 || httpStatus === 410) return 5;
  if (httpStatus === 429) return 6;
  return 7;
}

/** What to do next for an API error code, or undefined for codes the spec does not list. */
export function hintForApiCode(code: string): string | undefined {
  return TABLE[code]?.hint;
}

/** Account-level codes: `packs sync` stops at once on these (cli-contract "packs sync"). */
export function isAccountLevelCode(code: string): boolean {
  return (
    code === "missing_api_key" ||
    code === "invalid_api_key" ||
    code === "revoked_api_key" ||
    code === "expired_api_key" ||
    code === "api_disabled" ||
    code === "not_eligible" ||
    code === "blocked"
  );
}

/** Every spec error code the table knows, for tests and documentation. */
export const KNOWN_API_CODES: readonly string[] = Object.keys(TABLE);
