import { ExitCode } from "../exit-codes.js";
import { account, type CodeEntry, server } from "./entry.js";
import { KEYS_PAGE, loginAgain, notEntitled, SUPPORT, slugSource } from "./hints.js";

/** The rows of the spec's API error codes (spec "Errors"): what the service itself refuses. */
export const API_ROWS = {
  missing_api_key: account(
    ExitCode.auth,
    "Set SVC_API_KEY or run `svc-dl auth login` to store a key for this service.",
  ),
  invalid_api_key: account(
    ExitCode.auth,
    `Check the key (it starts with svc_live_ and must be sent whole) or create a new one under ${KEYS_PAGE}. A license key (SVC_…) is not an API key: use \`svc-dl legacy get\`.`,
  ),
  revoked_api_key: account(ExitCode.auth, loginAgain("This key was revoked.")),
  expired_api_key: account(ExitCode.auth, loginAgain("This key has expired.")),
  api_disabled: account(
    ExitCode.forbidden,
    "API access is switched off for this account right now; try again later or contact support with the request id.",
    true,
  ),
  not_eligible: account(
    ExitCode.forbidden,
    "API access needs a purchase (a pack or lifetime access) on this account.",
  ),
  blocked: account(
    ExitCode.forbidden,
    "The service gives no detail for this refusal; contact support and quote the request id.",
  ),
  insufficient_scope: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    // the key lacks the scope for every later item too
    scope: "run",
    hint: `The key lacks the scope this needs (downloads need downloads:read, the catalog needs catalog:read). Scopes cannot be edited: create a new key with the scope under ${KEYS_PAGE}.`,
  },
  not_entitled: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    scope: "item",
    // a call, not the bare function: the rolled-up declarations then spell its type out
    hint: (c, d) => notEntitled(c, d),
  },
  not_found: {
    exitCode: ExitCode.notFound,
    retryable: false,
    scope: "item",
    hint: (c) =>
      c.command === "api"
        ? "Nothing at that path: check the route and any name in it (e.g. `svc-dl api me`, `svc-dl api orders`)."
        : `No such published item; ${slugSource(c)}.`,
  },
  route_not_found: {
    exitCode: ExitCode.notFound,
    retryable: false,
    // a base URL that misses the service fails every later item the same way
    scope: "run",
    // `basePath`: the path the base URL has (`base`, set in `from`), the likely cause
    hint: (c, d) =>
      typeof d.basePath === "string" && d.basePath !== ""
        ? `Check the base URL ${d.base}${d.from ? ` (from ${d.from})` : ""}: it is the service's address without /api, perhaps ${d.origin} without the path ${d.basePath}.`
        : c.command === "api"
          ? "Nothing at that path: check the route (e.g. `svc-dl api me`) and the base URL (the service's address without /api)."
          : "Check the base URL: it is the service's address without /api (--base-url, SVC_BASE_URL or the config file).",
  },
  file_unavailable: {
    exitCode: ExitCode.notFound,
    retryable: false,
    scope: "item",
    hint: (c) =>
      c.given("--edition")
        ? "The item exists but this file does not (for example no authoring edition); try without --edition."
        : "The item exists but its file is not available for download right now.",
  },
  range_not_satisfiable: {
    exitCode: ExitCode.network,
    retryable: true,
    scope: "item",
    hint: (c) =>
      c.has("--force")
        ? "The service refused the resume range; run again with --force to start over."
        : "The service refused the resume range; run the same command again to start the file over.",
  },
  rate_limited: {
    exitCode: ExitCode.rateLimited,
    retryable: true,
    // past --max-wait every later request is refused too
    scope: "run",
    hint: (c) =>
      `Too many requests; wait and run again later${c.has("--max-wait") ? ", or raise --max-wait" : ""}.`,
  },
  internal_error: server(`The service failed; try again later and ${SUPPORT}.`),
  server_error: server(`The service failed; try again later and ${SUPPORT}.`),
} as const satisfies Record<string, CodeEntry>;
