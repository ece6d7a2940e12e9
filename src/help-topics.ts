import { CODES } from "./errors/codes.js";
import { EXIT_CODE_MEANINGS } from "./errors/exit-codes.js";

/**
 * `svc-dl help exit-codes`: every exit code with its meaning and the error codes that end with
 * it, listed from the one error table (cli-contract "Exit codes"), so the list cannot drift.
 */
function exitCodesTopic(): string {
  const lines = [
    "Exit codes of svc-dl. Every error names its code (`code X` on stderr; `error.code` in",
    "the --json error document on stderr), and its request id when a request was made.",
    "",
  ];
  for (const [exit, meaning] of EXIT_CODE_MEANINGS) {
    lines.push(`${String(exit).padStart(3)}  ${meaning}`);
    const codes = Object.entries(CODES)
      .filter(([, entry]) => entry.exitCode === exit)
      .map(([code]) => code)
      .sort();
    if (codes.length > 0) lines.push(...wrap(codes.join(", "), 74).map((l) => `     ${l}`));
  }
  lines.push(
    "",
    "An API error code not in this list, and legacy_denied, end with the exit code of",
    "the HTTP status (401 → 3, 403 → 4, 404 and 410 → 5, 429 → 6, any other → 7).",
  );
  return `${lines.join("\n")}\n`;
}

/** `svc-dl help environment`: the environment variables svc-dl reads (cli-contract). */
const ENVIRONMENT_TOPIC = `Environment variables read by svc-dl (a flag wins over a variable, a variable over the config file):

  SVC_BASE_URL          service address (--base-url; config base-url)
  SVC_API_KEY           API key; wins over every other source of the key
  SVC_API_KEY_FILE      a file holding the API key (yours, mode 0600, not a symlink)
  CREDENTIALS_DIRECTORY systemd's credentials directory: the key in its file svc-api-key
                        (LoadCredential=svc-api-key:FILE); after SVC_API_KEY_FILE
  DBUS_SESSION_BUS_ADDRESS
                        the D-Bus session of the OS keyring (Linux) that \`auth login\` uses
  SVC_LICENSE_KEY       license key for \`svc-dl legacy get\`
  SVC_DL_CONFIG_DIR     config directory (default: the OS config directory)
  SVC_DL_CACHE_DIR      download cache of \`svc-dl install\` (default: the OS cache directory)
  SVC_DL_OFFLINE        1: open no network connection (as --offline)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                        proxies (lower case wins, as in curl; --proxy wins over them)
  SVC_CA_FILE           extra trusted CA certificates, PEM (--ca-file; config ca-file)
  NODE_EXTRA_CA_CERTS   extra trusted CA certificates, PEM, kept alongside SVC_CA_FILE
  NO_COLOR              no colour (as --no-color)
  FORCE_COLOR           0 for no colour, 1-3 for colour even without a terminal
  COLUMNS               terminal width when stderr does not report one
`;

/** Help topics beside the commands (`svc-dl help <topic>`), as gh has `gh help exit-codes`. */
const TOPICS: Readonly<Record<string, () => string>> = {
  "exit-codes": exitCodesTopic,
  environment: () => ENVIRONMENT_TOPIC,
};

/** The names of the help topics. */
export const HELP_TOPIC_NAMES: readonly string[] = Object.keys(TOPICS);

/** The text of help topic `name`, or undefined when there is no such topic. */
export function helpTopic(name: string): string | undefined {
  return Object.hasOwn(TOPICS, name) ? TOPICS[name]?.() : undefined;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
