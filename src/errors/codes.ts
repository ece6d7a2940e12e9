import { archiveHint } from "./archive-hints.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";

/**
 * The one error table (cli-contract "Exit codes", spec "Errors"): every API error code and every
 * local code svc-dl reports → its exit code, whether running again later may succeed
 * (`retryable`, the `--json` error line's field), its scope (whether it stops a run over several
 * items or fails one item), and the generic hint, rendered for the command at hand so that it
 * names only commands and flags that exist, from the facts the thrower passes (`detail`: a path,
 * a file name). A thrower gives its own prose hint only where no row can know the situation;
 * test/errors/site-hints.test.ts lists those places, each with its reason. The rows of one
 * concept may live in a file of their own that this table imports (src/errors/archive-hints.ts).
 */

/** What a hint may refer to: the command being run and the commander tree around it. */
export interface HintContext {
  /** The command at hand, as typed without the program name (`"asset get"`, `"packs sync"`), or `""`. */
  readonly command: string;
  /** True when the command at hand (or the program, for global options) takes this flag (`"--edition"`). */
  has(flag: string): boolean;
  /** True when the program has this command (`"assets list"`). */
  exists(command: string): boolean;
  /** True when this flag was given on the command line of the run (`"--edition"`). */
  given(flag: string): boolean;
  /** The kind of the item at hand, for the hint of one item of a run over several (`install`). */
  readonly item?: "pack" | "asset";
}

/**
 * The facts a thrower knows about one failure (a path, the file name, whether the partial data
 * is kept), which a row's hint may name: `new SvcError(msg, { code, detail: { path } })`.
 * Values are plain text or numbers; absent keys mean the thrower does not know.
 */
export type HintDetail = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A hint: fixed text, or text built for the command at hand and the thrower's facts; null when
 * there is no next step.
 */
export type Hint = string | ((c: HintContext, detail: HintDetail) => string | null);

/**
 * What a failure stops in a run over several items (`packs sync`, `install`, several slugs,
 * `verify --repair`; cli-contract "packs sync"): `account` and `run` end the run at once with
 * the error's own exit code (the key or the account is refused; or every later item would fail
 * the same way: configuration, disk, rate limit past --max-wait, interruption); `item` fails
 * that item only and the run goes on.
 */
export type Scope = "account" | "run" | "item";

/** One row of the table. */
export interface CodeEntry {
  /** `"status"`: by the HTTP status of the answer, as for an unlisted code ({@link exitCodeFor}). */
  readonly exitCode: ExitCodeValue | "status";
  /**
   * Running the same command again later may succeed; `"items"` for the outcome of a run over
   * several items: true when any failed item's code is retryable.
   */
  readonly retryable: boolean | "items";
  readonly scope: Scope;
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

/** True when the item at hand is an asset: the thrower's `kind`, else the item or the command. */
function isAsset(c: HintContext, kind?: unknown): boolean {
  if (kind === "asset" || kind === "pack") return kind === "asset";
  return c.item ? c.item === "asset" : c.command.startsWith("asset") || c.given("--asset");
}

/** Where to look up a slug for the command at hand (`kind`: the thrower's, when it knows). */
function slugSource(c: HintContext, kind?: unknown): string {
  if (isAsset(c, kind)) {
    return c.exists("assets list")
      ? "`svc-dl assets list` shows the assets you can download"
      : "use the slug exactly as the service shows it";
  }
  return "`svc-dl packs list` shows the packs you own";
}

/**
 * The next step after `not_entitled` (spec "Order payment", "POST /api/download"): a license
 * key that does not cover the item (`legacy get`); a pack the account's listing has (`listed`,
 * and every pack `packs sync` fetches), whose order is therefore not paid; an asset, which needs
 * its pack among the paid purchases; else a pack not bought.
 */
function notEntitled(c: HintContext, d: HintDetail): string {
  const orders = "`svc-dl api orders` shows each order's payment status";
  if (c.command === "legacy get") {
    return "This license key does not cover this item: a license key covers the packs of its own order (or lifetime access). Use the license key of the order that bought it, or your API key with `svc-dl pack get` / `svc-dl asset get`.";
  }
  if (d.listed === true || c.command === "packs sync") {
    return `\`svc-dl packs list\` lists this pack, but the service refuses its download: the order it was bought with is not paid (an open refund or dispute), and new downloads stay unavailable until it is. ${capitalise(orders)}; settle the order on the service's site or contact support with the request id.`;
  }
  if (isAsset(c, d.kind)) {
    return `This premium asset needs its pack (or lifetime access) among the account's paid purchases; ${slugSource(c, "asset")}, and ${orders} (an order that is not paid gives no downloads).`;
  }
  return `This pack is not among the account's purchases; ${slugSource(c)} (a pack bought with an order that is not paid is listed there but cannot be downloaded: ${orders}).`;
}

/**
 * "file exists / not ours" next step, naming only flags the command has (`packs sync` and
 * `install` have neither `--force` nor `-o`: moving the file is their way).
 */
function otherDestination(c: HintContext): string {
  const ways = ["move the file away (a file identical to the served one is adopted)"];
  if (c.has("--force")) ways.push("use --force to overwrite it");
  if (c.has("--output")) ways.push("choose another name with -o");
  return `${capitalise(ways.join(", or "))}, then run the same command again.`;
}

/** Where the proxy is set, naming `--proxy` only where the command has it. */
function proxyWays(c: HintContext): string {
  return `${c.has("--proxy") ? "--proxy, " : ""}HTTPS_PROXY, HTTP_PROXY, NO_PROXY`;
}

/**
 * The next step for a file in the way, from the thrower's facts: `archiveNotFile` (the archive
 * to extract is not a regular file), `path` with `extracting` (a file where an extraction puts
 * a folder or a file; nothing was changed) or `manifestDir` (in an install's `dir`); else
 * {@link otherDestination}.
 */
function fileInTheWay(c: HintContext, d: HintDetail): string {
  if (d.archiveNotFile) return "Download the pack again without --extract, then with it.";
  // another item's file: `userChosen` (the -o name), else `getCommand` fetches it elsewhere
  if (d.userChosen) {
    return "Choose another name with -o, or use --force to give the name to this item.";
  }
  if (typeof d.getCommand === "string") {
    return `Both the server's name and the fallback name are taken by other items; fetch this one under a name of your choice: \`${d.getCommand}\`.`;
  }
  const what = typeof d.path === "string" ? d.path : "that file";
  if (d.extracting) return `Move ${what} away and run the same command again; nothing was changed.`;
  if (d.manifestDir) {
    return `Move ${what} away (or change \`dir\` in the manifest) and run \`svc-dl install\` again.`;
  }
  return otherDestination(c);
}

/**
 * The next step after a refused download link (`insecure_url`, `unsupported_scheme`): a
 * redirect has a request id to quote; a link from the service's record was refused before any
 * request, so there is none, and the item and the link (in the message) are what to report.
 */
function reportLink(what: string, d: HintDetail): string {
  return d.link === "redirect"
    ? `The service redirected the download to ${what}; nothing was sent there. Report this to the service with the request id.`
    : `The service's record of this item gives ${what} to download from; svc-dl refused it before any request. Report this to the service, naming the item and the address above.`;
}

/**
 * The next step of a file-system failure (`no_space`, `permission_denied`, `write_failed`)
 * while svc-dl was not downloading: `during: "extract"` (nothing was extracted, the ZIP is
 * kept), `during: "cache"` (pruning the cache folder); undefined otherwise.
 */
function duringHint(d: HintDetail): string | undefined {
  if (d.during === "extract") {
    return "Nothing was extracted; fix the cause and run the same command again (the ZIP is kept).";
  }
  if (d.during === "cache") {
    return "Make the cache writable, or point SVC_DL_CACHE_DIR at a directory you can write.";
  }
  return undefined;
}

/** The way round a refused cache: only `install` reads the cache, and only it has --no-cache. */
function noCache(c: HintContext, d: HintDetail): string {
  if (c.has("--no-cache")) return ", or run with --no-cache";
  return d.doing === "check" && c.exists("install") ? ", or run install with --no-cache" : "";
}

/**
 * What a full disk's facts say (`free`: the bytes free, `written`: the file's bytes written, or
 * absent when none were; both as shown, `4.0 KiB`), as ` (the disk had …)`, or "".
 */
function roomLeft(d: HintDetail): string {
  if (typeof d.free !== "string") return "";
  const when =
    typeof d.written === "string" ? `after ${d.written} of the file` : "before any of the file";
  return ` (the disk had ${d.free} free ${when} was written)`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const loginAgain = (what: string) => (c: HintContext) =>
  `${what} Create a new key under ${KEYS_PAGE}, then ${c.exists("auth login") ? "run `svc-dl auth login` or " : ""}set SVC_API_KEY.`;

/** A mistake in one item's arguments (a slug, a flag): that item fails. */
const usage = (hint: Hint | null = null): CodeEntry => ({
  exitCode: ExitCode.usage,
  retryable: false,
  scope: "item",
  hint,
});
/** A configuration error (base URL, proxy, CA file, key, manifest): every item would fail alike. */
const config = (hint: Hint | null): CodeEntry => ({ ...usage(hint), scope: "run" });
const server = (hint: Hint | null): CodeEntry => ({
  exitCode: ExitCode.network,
  retryable: true,
  scope: "item",
  hint,
});
/** The local file system: the directory or the disk, so the run stops (unless `item`). */
const local = (hint: Hint | null, retryable = false, scope: Scope = "run"): CodeEntry => ({
  exitCode: ExitCode.fileSystem,
  retryable,
  scope,
  hint,
});
/** The key or the account is refused: every later request would be too. */
const account = (exitCode: ExitCodeValue, hint: Hint, retryable = false): CodeEntry => ({
  exitCode,
  retryable,
  scope: "account",
  hint,
});
/** The outcome of a whole run over several items (or of the run as a whole). */
const outcome = (exitCode: ExitCodeValue, hint: Hint | null, retryable: CodeEntry["retryable"]) =>
  ({ exitCode, retryable, scope: "run", hint }) satisfies CodeEntry;

/** The table. Keys are the stable `code` values of errors (API and local). */
export const CODES = {
  // --- the spec's API error codes ---
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
    hint: notEntitled,
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

  // --- network (connection, TLS, DNS, timeout) ---
  network_error: server((_c, d) =>
    d.toStdout
      ? "Run the command again, or download with -o DIR to resume."
      : d.partialKept
        ? "Run the same command again to resume from the bytes already saved."
        : "Check the network and the base URL; svc-dl retried where it could.",
  ),
  // `stalled`: the download host went silent in earlier items; `gaveUp`: every attempt went silent
  timeout: server((_c, d) =>
    d.stalled
      ? "The download host stopped answering; run the same command again later to fetch the rest (finished files are kept)."
      : d.gaveUp
        ? "Check the network; run the same command again later to resume."
        : "The service stopped answering; run the same command again later.",
  ),
  dns_error: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    // `proxy`: the (redacted) proxy the name was asked through; `proxySource`: where the proxy
    // whose own name does not resolve is set; `source`: where the base URL is set
    hint: (c, d) =>
      typeof d.proxySource === "string"
        ? `Check the proxy's host name in ${d.proxySource} (${proxyWays(c)}${c.exists("config set") ? " or `svc-dl config set proxy URL`" : ""}).`
        : typeof d.proxy === "string"
          ? `Check the host name and the proxy ${d.proxy} (${proxyWays(c)}).`
          : typeof d.source === "string"
            ? `Check the host name of the base URL (from ${d.source}); if this network reaches the internet only through a proxy, set it with ${proxyWays(c)}${c.exists("config set") ? " or `svc-dl config set proxy URL`" : ""}.`
            : `Check the host name in the base URL (${c.has("--base-url") ? "--base-url, " : ""}SVC_BASE_URL or \`svc-dl config get base-url\`), and the proxy if one is set (${proxyWays(c)}).`,
  },
  tls_error: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    hint: (c) =>
      c.has("--ca-file")
        ? `If the host uses a private certificate authority, pass its PEM file with --ca-file (or SVC_CA_FILE${c.exists("config set") ? ", or `svc-dl config set ca-file PATH`" : ""}), or set NODE_EXTRA_CA_CERTS.`
        : "If the host uses a private certificate authority, set SVC_CA_FILE or NODE_EXTRA_CA_CERTS to its PEM file.",
  },
  not_tls: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    // `baseUrl` (and its `source`): the service's own origin; `host`: a link's host (the CDN)
    hint: (_c, d) =>
      typeof d.baseUrl === "string"
        ? `Check the scheme and port of the base URL ${d.baseUrl}${d.source ? ` (from ${d.source})` : ""}: use the service's https port, or http:// for a service on this machine.`
        : typeof d.host === "string"
          ? `The link to ${d.host} names https on a port that does not speak TLS; ${SUPPORT}.`
          : "Check the URL's scheme and port: the server does not speak TLS there (http:// only for a loopback service).",
  },
  proxy_error: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    hint: (c) =>
      `Check the host name in the base URL and the proxy (${proxyWays(c)}); a proxy that wants a login takes it in its URL (http://user:password@host:port).`,
  },
  invalid_proxy: config(
    (c) => `Give the proxy as http://host:port or https://host:port (${proxyWays(c)}).`,
  ),
  invalid_ca_file: config(
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
    scope: "item",
    hint: "The download would travel unencrypted; report this to the service.",
  },
  insecure_url: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    hint: (_c, d) => reportLink("a clear-text http:// address", d),
  },
  unsupported_scheme: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    hint: (_c, d) => reportLink("a link that is not https", d),
  },
  corrupt_download: server(`Run the same command again; if it keeps failing, ${SUPPORT}.`),
  unsafe_archive: {
    exitCode: ExitCode.network,
    retryable: false,
    scope: "item",
    // `problem`: the kind of refusal the extractor found (src/errors/archive-hints.ts)
    hint: (_c, d) =>
      archiveHint(d.problem) ?? "Nothing was extracted; the ZIP is kept as downloaded.",
  },
  legacy_denied: {
    // the legacy endpoint's denials have no documented shape: the status says what it was
    exitCode: "status",
    retryable: false,
    scope: "item",
    hint: "Check that the license key belongs to this pack (or to lifetime access) and that its order is paid; quote the request id to support.",
  },

  // --- the user's mistakes and configuration ---
  usage_error: usage(
    (c) => `Run \`svc-dl ${c.command ? `${c.command} ` : ""}--help\` for usage and examples.`,
  ),
  unknown_command: usage(null),
  invalid_limit_rate: config(
    "Give bytes per second like curl: 500K, 5M, 1G (powers of 1024) or a plain number of bytes; at least 2K.",
  ),
  // `library`: the library's maxDuration, which also takes a Date
  invalid_max_duration: config(
    (_c, d) =>
      `Give a duration like 90s, 30m, 2h, or a number of seconds above 0${d.library ? ", or a Date" : ""}.`,
  ),
  no_base_url: config(
    "Set it with --base-url URL, the SVC_BASE_URL environment variable, or `svc-dl config set base-url URL`.",
  ),
  // `suggestion`: the address the thrower made of the one given
  invalid_base_url: config((_c, d) =>
    d.suggestion
      ? `Use ${d.suggestion}`
      : "Give a full address with its scheme, e.g. https://assets.example.com",
  ),
  insecure_base_url: config((_c, d) =>
    d.suggestion
      ? `Use ${d.suggestion}`
      : "Use an https:// address; http:// is only for loopback hosts.",
  ),
  invalid_slug: usage(
    (c, d) => `Use the slug exactly as the service shows it; ${slugSource(c, d.kind)}.`,
  ),
  invalid_api_path: usage(
    "Name a route under /api/v1, e.g. `svc-dl api me`, `svc-dl api orders`, `svc-dl api catalog/packs`.",
  ),
  // `supported`: the shells completion knows
  unknown_shell: usage((_c, d) => `Supported shells: ${d.supported ?? "bash, zsh, fish"}.`),
  // `settable`: the settable keys, listed
  unknown_config_key: usage((_c, d) =>
    d.settable
      ? `Settable keys: ${d.settable}. API keys are stored with \`svc-dl auth login\`.`
      : "Run `svc-dl config list` to see the settable keys.",
  ),
  invalid_schedule: usage((c, d) => {
    if (d.syncFlags) {
      return "The words after -- go to `svc-dl packs sync DIR` as they are: correct them as the message says (`svc-dl packs sync --help` lists its flags), or try them with `svc-dl packs sync DIR --dry-run` first.";
    }
    if (!c.has("--every")) return "See `svc-dl schedule --help`.";
    return d.cronWrite
      ? "A crontab is yours: svc-dl prints the line and leaves the editing to you. Add it with `crontab -e`, or append it with `(crontab -l; svc-dl schedule --cron DIR) | crontab -`."
      : "Give one of --systemd and --cron, --every as one of the intervals named, --at as HH:MM (24-hour clock); `svc-dl schedule --help` has examples.";
  }),
  unsafe_schedule_argument: usage(
    "A schedule carries spaces, quotes, % and $ as they are, but not what the message names (an empty word, a control character; in a unit, a quote in node's path, a space or backslash at the end of the key file's path): give that value without it, or use a plainer path.",
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
  malformed_api_key: config(
    "Copy the key again exactly as shown when it was created (svc_live_…, letters, digits and _ only).",
  ),
  license_key_as_api_key: config(
    `License keys work only with \`svc-dl legacy get\` (SVC_LICENSE_KEY or \`svc-dl legacy get --license-key-stdin\`). API keys start with svc_live_ and are created under ${KEYS_PAGE}.`,
  ),
  wrong_key_kind: usage(
    "Use `svc-dl pack get` / `svc-dl asset get` with an API key; `svc-dl legacy get` takes the license key from the purchase.",
  ),
  no_license_key: usage(
    "Set SVC_LICENSE_KEY, or pipe it in with `svc-dl legacy get --license-key-stdin`; it is never taken from the command line.",
  ),
  manifest_missing: config((c, d) =>
    d.notRegular === true
      ? `Put the manifest in a regular file${typeof d.path === "string" ? ` at ${d.path}` : ""}${c.has("--manifest") ? ", or name one with --manifest FILE" : ""}; svc-dl never reads a FIFO, device or directory as a manifest.`
      : c.exists("install")
        ? `Create svc-dl.json (see \`svc-dl install --help\`)${c.has("--manifest") ? " or name one with --manifest FILE" : ""}.`
        : "Create the manifest svc-dl.json.",
  ),
  dir_not_found: usage((c) =>
    c.command === "verify"
      ? "Name the directory svc-dl downloaded into, e.g. `svc-dl verify ~/assets`."
      : "Name an existing directory.",
  ),
  invalid_manifest: config((c, d) =>
    d.field === "dir"
      ? 'Set "dir" to a folder below the manifest\'s folder, e.g. "vendor/assets" (svc-dl never writes outside the project).'
      : c.exists("install")
        ? 'Fix the manifest, e.g. {"dir":"vendor/assets","packs":["forest-pack"],"assets":["free-sample-cube"]}; see `svc-dl install --help`.'
        : 'Fix the manifest, e.g. {"dir":"vendor/assets","packs":["forest-pack"],"assets":["free-sample-cube"]}.',
  ),
  invalid_lock: config((c) =>
    c.exists("install")
      ? "Restore svc-dl.lock from version control, or delete it and run `svc-dl install` to write a new one."
      : "Restore svc-dl.lock from version control, or delete it to write a new one.",
  ),
  // `library`: a client made without apiKey
  no_api_key: account(ExitCode.auth, (_c, d) =>
    d.library
      ? `Pass apiKey to createClient() (keys are created under ${KEYS_PAGE}).`
      : `Set SVC_API_KEY (or SVC_API_KEY_FILE to a file holding it) or run \`svc-dl auth login\` (keys are created under ${KEYS_PAGE}).`,
  ),
  keyring_unavailable: account(
    ExitCode.auth,
    "The key was stored in the OS keyring, which cannot be reached here (no D-Bus session, as under cron or a system service): give the key with SVC_API_KEY_FILE (or the systemd credential svc-api-key), or run `svc-dl auth login --insecure-storage` to keep it in the config file.",
  ),

  // --- the local file system ---
  // one destination only, not the directory or the disk
  file_exists: local((c, d) => fileInTheWay(c, d), false, "item"),
  special_file: local(
    (c) =>
      c.has("--output")
        ? "Give -o a file path or a directory; to throw the bytes away or pipe them, use -o - (e.g. `-o - > /dev/null`)."
        : "Move it away: svc-dl only writes regular files.",
    false,
    "item",
  ),
  locked: local(
    (c) =>
      `Wait for the other run to finish${c.has("--wait-lock") ? " (or pass --wait-lock SECONDS to wait for it)" : ""}, or use another directory. A lock left by a crashed run expires by itself.`,
    true,
  ),
  // `during`: what svc-dl was doing besides a download (see duringHint), for the three codes
  // of a file-system failure
  no_space: local(
    (_c, d) =>
      duringHint(d) ??
      `Free some disk space and run the same command again; the partial data is kept${roomLeft(d)}.`,
    true,
  ),
  permission_denied: local(
    (c, d) =>
      duringHint(d) ??
      (c.has("--output")
        ? "Check the permissions of the output directory, or choose another with -o."
        : "Check the permissions of the directory and of the files in it."),
  ),
  // the part file changed under the download (`restart`): the next run starts it over
  // `inTheWay`: a file at `path`, where svc-dl's state folder goes
  write_failed: local(
    (_c, d) =>
      duringHint(d) ??
      (d.restart
        ? "Run the same command again; svc-dl starts the file over."
        : d.inTheWay
          ? `Move ${d.path} away; svc-dl keeps its bookkeeping in that directory.`
          : null),
    true,
  ),
  unsafe_output_path: local(
    "Move what is at that path away, or name another file: outside its own .svc-dl/ folder svc-dl writes only regular files, never through a symlink, FIFO, device or directory.",
  ),
  // `path`: the refused folder; `trash`: it is where prune moves files
  unsafe_state_dir: local((_c, d) =>
    typeof d.path !== "string"
      ? "The state folder is a symlink or not owned by you; move it away (svc-dl never follows a link it did not make)."
      : d.trash
        ? `Move ${d.path} away (svc-dl makes its trash itself and never follows a link it did not make), then run the same command again.`
        : `Check who made ${d.path}; if it is yours, make it a private directory (chmod 700 ${d.path}) or move it away (svc-dl then adopts the files it finds identical).`,
  ),
  config_unreadable: local((_c, d) =>
    d.permission === false
      ? "Set SVC_DL_CONFIG_DIR to a writable directory."
      : "Check the permissions of the config directory and file (`svc-dl config path` names them), or set SVC_DL_CONFIG_DIR to another directory.",
  ),
  config_invalid: config(
    (_c, d) =>
      `Fix or delete ${d.path ?? "the config file (`svc-dl config path`)"}: it holds base-url and the stored API keys.`,
  ),
  offline: local(
    (c) =>
      `These items are not in the cache or the directory: run ${c.command ? `\`svc-dl ${c.command}\`` : "the same command"} once without --offline (and without SVC_DL_OFFLINE) to fetch them into the cache; later --offline runs take them from there.`,
    false,
    "item",
  ),
  unsafe_key_file: local(
    "The key file must be a regular file of your own that only you can read (chmod 600 FILE), not a symlink; fix it or point SVC_API_KEY_FILE at another.",
  ),
  unsafe_config: local(
    "The API key is never stored where another user could read or replace it: use a private directory of your own (chmod 700), or set SVC_DL_CONFIG_DIR to one (`svc-dl config path` names the one in use).",
  ),
  // `doing`: what was refused (`check`: doctor's look); `unmarked`: the folder has no mark of
  // svc-dl's; `entry` in `root`: the entry svc-dl did not write
  unsafe_cache_dir: local(
    (c, d) =>
      `The cache directory is a symlink, not a directory, or not yours; point SVC_DL_CACHE_DIR at a directory only you can write${noCache(c, d)}.`,
  ),
  foreign_cache_dir: local((c, d) =>
    d.unmarked
      ? `SVC_DL_CACHE_DIR names a folder svc-dl did not create: point it at a new or empty directory${noCache(c, d)}.`
      : typeof d.entry === "string"
        ? `Move ${d.entry} out of ${d.root} (svc-dl deletes only what it wrote there), or point SVC_DL_CACHE_DIR at a new directory${noCache(c, d)}.`
        : `The cache directory holds something svc-dl did not write; point SVC_DL_CACHE_DIR at a new or empty directory${noCache(c, d)}.`,
  ),

  foreign_schedule_file: local(
    (c, d) =>
      `svc-dl rewrites only the unit files it wrote (their first line is its mark): move ${d.path ?? "that file"} away${c.has("--write") ? ", or run the same command without --write and merge the printed units into it by hand" : ""}.`,
  ),

  // --- outcomes of a whole run ---
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
