import { ENVIRONMENT_VARIABLES } from "./environment-variables.js";
import { CODES } from "./errors/codes.js";
import { EXIT_CODE_MEANINGS } from "./errors/exit-codes.js";
import { wrap } from "./io/wrap.js";

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

/** `svc-dl help environment`: {@link ENVIRONMENT_VARIABLES}, one variable (or spellings) per entry. */
function environmentTopic(): string {
  const lines = [
    "Environment variables read by svc-dl (a flag wins over a variable, a variable",
    "over the config file):",
    "",
  ];
  for (const { names, meaning } of ENVIRONMENT_VARIABLES) {
    const name = names.join(", ");
    const head = name.length <= 22 ? `  ${name.padEnd(24)}` : `  ${name}\n${" ".repeat(26)}`;
    const [first = "", ...rest] = wrap(meaning, 54);
    lines.push(`${head}${first}`, ...rest.map((l) => `${" ".repeat(26)}${l}`));
  }
  return `${lines.join("\n")}\n`;
}

/** Help topics beside the commands (`svc-dl help <topic>`), as gh has `gh help exit-codes`. */
const TOPICS: Readonly<Record<string, () => string>> = {
  "exit-codes": exitCodesTopic,
  environment: environmentTopic,
};

/** The names of the help topics. */
export const HELP_TOPIC_NAMES: readonly string[] = Object.keys(TOPICS);

/** The text of help topic `name`, or undefined when there is no such topic. */
export function helpTopic(name: string): string | undefined {
  return Object.hasOwn(TOPICS, name) ? TOPICS[name]?.() : undefined;
}
