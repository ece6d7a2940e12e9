import { ExitCode } from "../exit-codes.js";
import { account, type CodeEntry, config, usage } from "./entry.js";
import { KEYS_PAGE, slugSource } from "./hints.js";

/**
 * The rows of the user's mistakes (arguments, keys typed or piped) and of configuration (base
 * URL, proxy, CA file, key, manifest, lock; cli-contract "Exit codes": exit 2, and exit 3 for a
 * missing key).
 */
export const USAGE_ROWS = {
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
} as const satisfies Record<string, CodeEntry>;
