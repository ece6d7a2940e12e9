/**
 * The environment variables svc-dl reads, as one list for `svc-dl help environment`, the end of
 * `svc-dl --help` and the README's table (a test holds all three, and the variables the source
 * reads, together). Data only: `--help` loads it at start-up.
 */

/** One row of `svc-dl help environment`: the variables (spellings) and what svc-dl reads them for. */
export interface EnvironmentVariable {
  /** The variable's spellings (`HTTPS_PROXY`, `https_proxy`). */
  readonly names: readonly string[];
  /** What svc-dl does with it, one line. */
  readonly meaning: string;
}

/**
 * Every environment variable svc-dl reads (cli-contract "Configuration and credentials",
 * "Operating unattended", "Credentials, schedules and offline runs"), the variables its
 * libraries read for it included (XDG_CONFIG_HOME through env-paths). `svc-dl help
 * environment` prints it, `svc-dl --help` names them; the README's table lists the same names (tested against this list,
 * and this list against the variables the source reads).
 */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { names: ["SVC_BASE_URL"], meaning: "service address (--base-url wins; config base-url)" },
  { names: ["SVC_API_KEY"], meaning: "API key; wins over every other source of the key" },
  {
    names: ["SVC_API_KEY_FILE"],
    meaning: "a file holding the API key (yours, mode 0600, not a symlink)",
  },
  {
    names: ["CREDENTIALS_DIRECTORY"],
    meaning:
      "systemd's credentials directory: the key in its file svc-api-key (LoadCredential=svc-api-key:FILE); after SVC_API_KEY_FILE",
  },
  {
    names: ["DBUS_SESSION_BUS_ADDRESS"],
    meaning: "the D-Bus session of the OS keyring (Linux) that `auth login` uses",
  },
  { names: ["SVC_LICENSE_KEY"], meaning: "license key for `svc-dl legacy get`" },
  {
    names: ["SVC_DL_CONFIG_DIR"],
    meaning: "config directory (default: the OS config directory)",
  },
  {
    names: ["XDG_CONFIG_HOME"],
    meaning:
      "Linux: the OS config directory is $XDG_CONFIG_HOME/svc-dl (default ~/.config); systemd user units are in $XDG_CONFIG_HOME/systemd/user",
  },
  {
    names: ["XDG_STATE_HOME"],
    meaning:
      "Linux: `svc-dl schedule --cron` keeps its log, report and metrics in $XDG_STATE_HOME/svc-dl (default ~/.local/state)",
  },
  {
    names: ["HOME"],
    meaning: "`svc-dl schedule`: the home directory, where an XDG variable is not set",
  },
  {
    names: ["SVC_DL_CACHE_DIR"],
    meaning: "download cache of `svc-dl install` (default: the OS cache directory)",
  },
  {
    names: ["XDG_CACHE_HOME"],
    meaning: "Linux: the OS cache directory is $XDG_CACHE_HOME/svc-dl (default ~/.cache)",
  },
  { names: ["SVC_DL_OFFLINE"], meaning: "1: open no network connection (as --offline)" },
  {
    names: ["SVC_DL_LIMIT_RATE"],
    meaning: "bytes per second for every download, 500K, 5M (--limit-rate wins; config limit-rate)",
  },
  {
    names: ["HTTPS_PROXY", "https_proxy"],
    meaning: "proxy for https requests (lower case wins, as in curl; --proxy wins over it)",
  },
  { names: ["HTTP_PROXY", "http_proxy"], meaning: "proxy for http requests (same precedence)" },
  { names: ["NO_PROXY", "no_proxy"], meaning: "hosts reached without the proxy" },
  {
    names: ["SVC_CA_FILE"],
    meaning: "extra trusted CA certificates, PEM (--ca-file wins; config ca-file)",
  },
  {
    names: ["NODE_EXTRA_CA_CERTS"],
    meaning: "extra trusted CA certificates, PEM, kept alongside SVC_CA_FILE",
  },
  {
    names: ["NODE_OPTIONS"],
    meaning: "`doctor` reads --use-system-ca / --use-openssl-ca in it to name the CA source",
  },
  { names: ["NO_COLOR"], meaning: "no colour (as --no-color)" },
  { names: ["FORCE_COLOR"], meaning: "0 for no colour, 1-3 for colour even without a terminal" },
  { names: ["COLUMNS"], meaning: "terminal width when stderr does not report one" },
  {
    names: ["JOURNAL_STREAM"],
    meaning: "set by systemd: when stderr is the journal, plain lines carry no time of their own",
  },
  {
    names: ["GITHUB_STEP_SUMMARY"],
    meaning: "set by GitHub Actions: `install` and `packs sync` append a Markdown summary to it",
  },
];
