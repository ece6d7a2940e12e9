import { ExitCode, type ExitCodeValue } from "./exit-codes.js";

/**
 * The one error table (cli-contract "Exit codes", spec "Errors"): every API error code and every
 * local code svc-dl reports → its exit code, whether running again later may succeed
 * (`retryable`, the `--json` error line's field), and the hint, rendered for the command at hand
 * so that it names only commands and flags that exist.
 */

/** What a hint may refer to: the command being run and the commander tree around it. */
export interface HintContext {
  /** The command at hand, as typed without the program name (`"asset get"`, `"packs sync"`), or `""`. */
  readonly command: string;
  /** True when the command at hand (or the program, for global options) takes this flag (`"--edition"`). */
  has(flag: string): boolean;
  /** True when the program has this command (`"assets list"`). */
  exists(command: string): boolean;
  /** The error's own hint (a time, a path), when the code that threw it gave one. */
  readonly detail?: string | undefined;
}

/** A hint: fixed text, or text built for the command at hand; null when there is no next step. */
export type Hint = string | ((c: HintContext) => string | null);

/** One row of the table. */
export interface CodeEntry {
  readonly exitCode: ExitCodeValue;
  /** Running the same command again later may succeed. */
  readonly retryable: boolean;
  readonly hint: Hint | null;
}

const KEYS_PAGE = "Account › Connections › API keys";
const SUPPORT = "quote the request id to support if it persists";
const AGAIN =
  "Partial data kept: run the same command again to resume from the bytes already saved.";

/** Commands that download into files (and so keep partial data when interrupted). */
const WRITES_FILES = new Set([
  "pack get",
  "asset get",
  "legacy get",
  "packs sync",
  "install",
  "verify",
]);

/** Where to look up a slug for the command at hand. */
function slugSource(c: HintContext): string {
  const assets = c.command.startsWith("asset") || c.command.endsWith("--asset");
  if (assets) {
    return c.exists("assets list")
      ? "`svc-dl assets list` shows the assets you can download"
      : "use the slug exactly as the service shows it";
  }
  return "`svc-dl packs list` shows the packs you own";
}

/** "file exists / not ours" next step, naming only flags the command has. */
function otherDestination(c: HintContext): string {
  const ways: string[] = [];
  if (c.has("--force")) ways.push("use --force to overwrite it");
  if (c.has("--output")) ways.push("choose another name with -o");
  return ways.length > 0
    ? `${capitalise(ways.join(", or "))}.`
    : "Move the file away, then run the same command again.";
}

/** Where the proxy is set, naming `--proxy` only where the command has it. */
function proxyWays(c: HintContext): string {
  return `${c.has("--proxy") ? "--proxy, " : ""}HTTPS_PROXY, HTTP_PROXY, NO_PROXY`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const loginAgain = (what: string) => (c: HintContext) =>
  `${what} Create a new key under ${KEYS_PAGE}, then ${c.exists("auth login") ? "run `svc-dl auth login` or " : ""}set SVC_API_KEY.`;

const usage = (hint: Hint | null = null): CodeEntry => ({
  exitCode: ExitCode.usage,
  retryable: false,
  hint,
});
const server = (hint: Hint | null): CodeEntry => ({
  exitCode: ExitCode.network,
  retryable: true,
  hint,
});
const local = (hint: Hint | null, retryable = false): CodeEntry => ({
  exitCode: ExitCode.fileSystem,
  retryable,
  hint,
});

/** The table. Keys are the stable `code` values of errors (API and local). */
export const CODES = {
  // --- the spec's API error codes ---
  missing_api_key: {
    exitCode: ExitCode.auth,
    retryable: false,
    hint: "Set SVC_API_KEY or run `svc-dl auth login` to store a key for this service.",
  },
  invalid_api_key: {
    exitCode: ExitCode.auth,
    retryable: false,
    hint: `Check the key (it starts with svc_live_ and must be sent whole) or create a new one under ${KEYS_PAGE}. A license key (SVC_…) is not an API key: use \`svc-dl legacy get\`.`,
  },
  revoked_api_key: {
    exitCode: ExitCode.auth,
    retryable: false,
    hint: loginAgain("This key was revoked."),
  },
  expired_api_key: {
    exitCode: ExitCode.auth,
    retryable: false,
    hint: loginAgain("This key has expired."),
  },
  api_disabled: {
    exitCode: ExitCode.forbidden,
    retryable: true,
    hint: "API access is switched off for this account right now; try again later or contact support with the request id.",
  },
  not_eligible: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    hint: "API access needs a purchase (a pack or lifetime access) on this account.",
  },
  blocked: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    hint: "The service gives no detail for this refusal; contact support and quote the request id.",
  },
  insufficient_scope: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    hint: `The key lacks the scope this needs (downloads need downloads:read, the catalog needs catalog:read). Scopes cannot be edited: create a new key with the scope under ${KEYS_PAGE}.`,
  },
  not_entitled: {
    exitCode: ExitCode.forbidden,
    retryable: false,
    hint: (c) =>
      `This item is not among the account's purchases (or its order is not paid); ${slugSource(c)}.`,
  },
  not_found: {
    exitCode: ExitCode.notFound,
    retryable: false,
    hint: (c) =>
      c.command === "api"
        ? "Nothing at that path: check the route and any name in it (e.g. `svc-dl api me`, `svc-dl api orders`)."
        : `No such published item; ${slugSource(c)}.`,
  },
  route_not_found: {
    exitCode: ExitCode.notFound,
    retryable: false,
    hint: (c) =>
      c.command === "api"
        ? "Nothing at that path: check the route (e.g. `svc-dl api me`) and the base URL (the service's address without /api)."
        : (c.detail ??
          "Check the base URL: it is the service's address without /api (--base-url, SVC_BASE_URL or the config file)."),
  },
  file_unavailable: {
    exitCode: ExitCode.notFound,
    retryable: false,
    hint: (c) =>
      c.has("--edition")
        ? "The item exists but this file does not (for example no authoring edition); try without --edition."
        : "The item exists but its file is not available for download right now.",
  },
  range_not_satisfiable: {
    exitCode: ExitCode.network,
    retryable: true,
    hint: (c) =>
      c.has("--force")
        ? "The service refused the resume range; run again with --force to start over."
        : "The service refused the resume range; run the same command again to start the file over.",
  },
  rate_limited: {
    exitCode: ExitCode.rateLimited,
    retryable: true,
    hint: (c) =>
      c.detail ??
      `Too many requests; wait and run again later${c.has("--max-wait") ? ", or raise --max-wait" : ""}.`,
  },
  internal_error: server(`The service failed; try again later and ${SUPPORT}.`),
  server_error: server(`The service failed; try again later and ${SUPPORT}.`),

  // --- network (connection, TLS, DNS, timeout) ---
  network_error: server("Check the network and the base URL; svc-dl retried where it could."),
  timeout: server("The service stopped answering; run the same command again later."),
  dns_error: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: (c) =>
      `Check the host name in the base URL (${c.has("--base-url") ? "--base-url, " : ""}SVC_BASE_URL or \`svc-dl config get base-url\`), and the proxy if one is set (${proxyWays(c)}).`,
  },
  tls_error: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: (c) =>
      c.has("--ca-file")
        ? `If the host uses a private certificate authority, pass its PEM file with --ca-file (or SVC_CA_FILE${c.exists("config set") ? ", or `svc-dl config set ca-file PATH`" : ""}), or set NODE_EXTRA_CA_CERTS.`
        : "If the host uses a private certificate authority, set SVC_CA_FILE or NODE_EXTRA_CA_CERTS to its PEM file.",
  },
  not_tls: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: (c) =>
      c.detail ??
      "Check the URL's scheme and port: the server does not speak TLS there (http:// only for a loopback service).",
  },
  proxy_error: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: (c) =>
      `Check the host name in the base URL and the proxy (${proxyWays(c)}); a proxy that wants a login takes it in its URL (http://user:password@host:port).`,
  },
  invalid_proxy: usage(
    (c) => `Give the proxy as http://host:port or https://host:port (${proxyWays(c)}).`,
  ),
  invalid_ca_file: usage(
    (c) =>
      `Point ${c.has("--ca-file") ? "--ca-file, " : ""}SVC_CA_FILE${c.exists("config set") ? " or `svc-dl config set ca-file PATH`" : ""} at a readable PEM file (-----BEGIN CERTIFICATE-----).`,
  ),
  bad_framing: server(
    `The server or a proxy on the way broke HTTP/1.1 framing, a bug on its side rather than a network fault; ${SUPPORT}.`,
  ),

  // --- responses that break the spec ---
  unexpected_response: server(
    `The service answered something the spec does not allow; retry later, and ${SUPPORT}.`,
  ),
  broken_pagination: server(`The service's paging is broken; retry later, and ${SUPPORT}.`),
  bad_redirect: server(`The service sent a redirect svc-dl cannot follow; ${SUPPORT}.`),
  too_many_redirects: server("The service or its CDN is redirecting in a loop; try again later."),
  insecure_redirect: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: "The download would travel unencrypted; report this to the service.",
  },
  insecure_url: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: "The download would travel unencrypted; report this to the service with the request id.",
  },
  unsupported_scheme: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: "The service handed out a link that is not https; report this to the service with the request id.",
  },
  corrupt_download: server(`Run the same command again; if it keeps failing, ${SUPPORT}.`),
  unsafe_archive: {
    exitCode: ExitCode.network,
    retryable: false,
    // the extractor names the cause (src/extract/errors.ts): encrypted, too deep, a link, …
    hint: (c) => c.detail ?? "Nothing was extracted; the ZIP is kept as downloaded.",
  },
  legacy_denied: {
    exitCode: ExitCode.network,
    retryable: false,
    hint: "Check that the license key belongs to this pack (or to lifetime access) and that its order is paid; quote the request id to support.",
  },

  // --- the user's mistakes and configuration ---
  usage_error: usage(
    (c) => `Run \`svc-dl ${c.command ? `${c.command} ` : ""}--help\` for usage and examples.`,
  ),
  unknown_command: usage(null),
  no_base_url: usage(
    "Set it with --base-url URL, the SVC_BASE_URL environment variable, or `svc-dl config set base-url URL`.",
  ),
  invalid_base_url: usage(
    (c) => c.detail ?? "Give a full address with its scheme, e.g. https://assets.example.com",
  ),
  insecure_base_url: usage(
    (c) => c.detail ?? "Use an https:// address; http:// is only for loopback hosts.",
  ),
  invalid_slug: usage((c) => `Use the slug exactly as the service shows it; ${slugSource(c)}.`),
  invalid_api_path: usage(
    "Name a route under /api/v1, e.g. `svc-dl api me`, `svc-dl api orders`, `svc-dl api catalog/packs`.",
  ),
  unknown_shell: usage((c) => c.detail ?? "Supported shells: bash, zsh, fish."),
  unknown_config_key: usage(
    (c) => c.detail ?? "Run `svc-dl config list` to see the settable keys.",
  ),
  binary_to_terminal: usage(
    (c) =>
      `The file is binary: redirect stdout to a file (\`> file\`) or pipe it${c.has("--output") ? ", or write it with -o PATH" : ""}.`,
  ),
  no_tty: usage((c) =>
    c.command === "legacy get"
      ? "Set SVC_LICENSE_KEY, or pipe the key in with --license-key-stdin."
      : "Pipe the key on stdin with `svc-dl auth login --with-key`, or set SVC_API_KEY.",
  ),
  empty_key: usage(
    `Create a key under ${KEYS_PAGE} and paste it, or pipe it with \`svc-dl auth login --with-key\`.`,
  ),
  invalid_key_input: usage("Give one key on stdin, nothing else."),
  malformed_api_key: usage(
    "Copy the key again exactly as shown when it was created (svc_live_…, letters, digits and _ only).",
  ),
  license_key_as_api_key: usage(
    `License keys work only with \`svc-dl legacy get\` (SVC_LICENSE_KEY or \`svc-dl legacy get --license-key-stdin\`). API keys start with svc_live_ and are created under ${KEYS_PAGE}.`,
  ),
  wrong_key_kind: usage(
    "Use `svc-dl pack get` / `svc-dl asset get` with an API key; `svc-dl legacy get` takes the license key from the purchase.",
  ),
  no_license_key: usage(
    "Set SVC_LICENSE_KEY, or pipe it in with `svc-dl legacy get --license-key-stdin`; it is never taken from the command line.",
  ),
  manifest_missing: usage((c) =>
    c.exists("install")
      ? `Create svc-dl.json (see \`svc-dl install --help\`)${c.has("--manifest") ? " or name one with --manifest FILE" : ""}.`
      : "Create the manifest svc-dl.json.",
  ),
  dir_not_found: usage((c) => c.detail ?? "Name an existing directory."),
  invalid_manifest: usage((c) =>
    c.exists("install")
      ? 'Fix the manifest, e.g. {"dir":"vendor/assets","packs":["forest-pack"],"assets":["free-sample-cube"]}; see `svc-dl install --help`.'
      : 'Fix the manifest, e.g. {"dir":"vendor/assets","packs":["forest-pack"],"assets":["free-sample-cube"]}.',
  ),
  invalid_lock: usage((c) =>
    c.exists("install")
      ? "Restore svc-dl.lock from version control, or delete it and run `svc-dl install` to write a new one."
      : "Restore svc-dl.lock from version control, or delete it to write a new one.",
  ),
  no_api_key: {
    exitCode: ExitCode.auth,
    retryable: false,
    hint: `Set SVC_API_KEY or run \`svc-dl auth login\` (keys are created under ${KEYS_PAGE}).`,
  },

  // --- the local file system ---
  file_exists: local((c) => otherDestination(c)),
  not_ours: local((c) => otherDestination(c)),
  special_file: local((c) =>
    c.has("--output")
      ? "Give -o a file path or a directory; to throw the bytes away or pipe them, use -o - (e.g. `-o - > /dev/null`)."
      : "Move it away: svc-dl only writes regular files.",
  ),
  locked: local(
    (c) =>
      `Wait for the other run to finish${c.has("--wait-lock") ? " (or pass --wait-lock SECONDS to wait for it)" : ""}, or use another directory. A lock left by a crashed run expires by itself.`,
    true,
  ),
  no_space: local(
    "Free some disk space and run the same command again; the partial data is kept.",
    true,
  ),
  permission_denied: local((c) =>
    c.has("--output")
      ? "Check the permissions of the output directory, or choose another with -o."
      : "Check the permissions of the directory and of the files in it.",
  ),
  write_failed: local((c) => c.detail ?? null, true),
  state_unreadable: local(
    (c) => c.detail ?? "Move the .svc-dl folder away to start a fresh record.",
  ),
  unsafe_state_dir: local(
    "The state folder is a symlink or not owned by you; move it away (svc-dl never follows a link it did not make).",
  ),
  config_unreadable: local(
    (c) => c.detail ?? "Check the config file's permissions (`svc-dl config path`).",
  ),
  config_invalid: local((c) => c.detail ?? "Fix or delete the config file (`svc-dl config path`)."),
  unsafe_config: local(
    "The config directory must be yours, not a symlink, and not writable by group or others (chmod 700); `svc-dl config path` names it.",
  ),
  unsafe_cache_dir: local(
    (c) =>
      `The cache directory is a symlink, not a directory, or not yours; point SVC_DL_CACHE_DIR at a directory only you can write${c.has("--no-cache") ? ", or run with --no-cache" : ""}.`,
  ),
  foreign_cache_dir: local(
    (c) =>
      c.detail ??
      `The cache directory holds something svc-dl did not write; point SVC_DL_CACHE_DIR at a new or empty directory${c.has("--no-cache") ? ", or run with --no-cache" : ""}.`,
  ),
  no_state: {
    exitCode: ExitCode.ok,
    retryable: false,
    hint: null,
  },

  // --- outcomes of a whole run ---
  lock_mismatch: {
    exitCode: ExitCode.lockMismatch,
    retryable: false,
    // The throw site names the items (`svc-dl install --update SLUG`) or the missing entries.
    hint: (c) =>
      c.detail ??
      "If the change is expected, run `svc-dl install --update` to record the new files in svc-dl.lock, then review its diff.",
  },
  sync_incomplete: {
    exitCode: ExitCode.failure,
    retryable: true,
    hint: "Fix the cause of each failure (see the codes) and run the same command again: it fetches only what is still missing.",
  },
  get_incomplete: {
    exitCode: ExitCode.failure,
    retryable: true,
    hint: "Fix the cause of each failure (see the codes) and run the same command again: finished items are not fetched again.",
  },
  install_incomplete: {
    exitCode: ExitCode.failure,
    retryable: true,
    hint: "Fix the cause of each failure (see the codes) and run the same command again: finished items are kept; svc-dl.lock is written once every item is in place.",
  },
  interrupted: {
    exitCode: ExitCode.sigint,
    retryable: true,
    // Only commands that write files keep partial data to resume from.
    hint: (c) =>
      c.command === "" || WRITES_FILES.has(c.command) ? AGAIN : "Run the same command again.",
  },
  aborted: {
    exitCode: ExitCode.sigint,
    retryable: true,
    hint: "Call again with the same arguments: it resumes from the bytes already saved.",
  },
  cancelled: { exitCode: ExitCode.sigint, retryable: false, hint: null },
  unexpected: {
    exitCode: ExitCode.failure,
    retryable: false,
    hint: "Run again with --verbose for details, and report it if it persists.",
  },
} as const satisfies Record<string, CodeEntry>;

/** Every code of the table. */
export type ErrorCode = keyof typeof CODES;

/** The table row of a code, or undefined for a code the table does not know. */
export function codeEntry(code: string): CodeEntry | undefined {
  return Object.hasOwn(CODES, code) ? (CODES as Record<string, CodeEntry>)[code] : undefined;
}

/**
 * Exit code for a code; unknown codes (an API code the spec does not list) fall back on the
 * HTTP status: 401 → auth, 403 → forbidden, 404/410 → not found, 429 → rate limited, else network.
 */
export function exitCodeFor(code: string, httpStatus: number | null): ExitCodeValue {
  const entry = codeEntry(code);
  if (entry) return entry.exitCode;
  if (httpStatus === 401) return ExitCode.auth;
  if (httpStatus === 403) return ExitCode.forbidden;
  if (httpStatus === 404 || httpStatus === 410) return ExitCode.notFound;
  if (httpStatus === 429) return ExitCode.rateLimited;
  return httpStatus === null ? ExitCode.failure : ExitCode.network;
}

/** Whether running again later may succeed; unknown codes: true for 429 and 5xx answers. */
export function isRetryable(code: string, httpStatus: number | null): boolean {
  const entry = codeEntry(code);
  if (entry) return entry.retryable;
  return httpStatus === 429 || (httpStatus !== null && httpStatus >= 500);
}

/**
 * The hint for a code, rendered for the command at hand; falls back on the error's own hint
 * (`c.detail`) for codes the table does not know. Null when there is no next step.
 */
export function renderHint(code: string, c: HintContext): string | null {
  const hint = codeEntry(code)?.hint;
  if (hint === undefined) return c.detail ?? null;
  if (hint === null) return null;
  return typeof hint === "string" ? hint : hint(c);
}

/** A context for hints outside any command (the library): no flags, no optional commands. */
export const NO_COMMAND: HintContext = {
  command: "",
  has: () => false,
  exists: () => false,
};

/** Account-level codes: `packs sync` and multi-item gets stop at once on these (cli-contract "packs sync"). */
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

/** The spec's API error codes the table knows (spec "Errors"). */
export const KNOWN_API_CODES: readonly string[] = [
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
