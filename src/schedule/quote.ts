import { UsageError } from "../errors/usage-error.js";
import { hasUnsafeTerminalText, terminalText } from "../io/terminal-text.js";

/**
 * Quoting of the words a schedule runs (cli-contract "Credentials, schedules and offline runs":
 * `svc-dl schedule`): every word of `packs sync` (paths, and the flags given after `--`) must
 * reach svc-dl as exactly the argument it was, whether systemd or `/bin/sh` under cron splits
 * the line. A word that no quoting can carry safely (a control character: a newline would end
 * the crontab line or the unit's setting) is refused instead.
 */

/**
 * Throws UsageError `unsafe_schedule_argument` (exit 2) when `word` is empty or holds a control
 * character (a newline, tab, escape…), which neither a crontab line nor a unit file can hold as
 * part of one argument, or a bidi/format control, which would make the printed schedule read
 * otherwise than it runs (the characters src/io/terminal-text.ts escapes). `what` names the word in the message (`the flag "--include"`, `DIR`).
 */
export function checkScheduleWord(word: string, what: string): void {
  if (word === "") {
    throw new UsageError(`${what} is empty, which a schedule cannot carry as one argument`, {
      code: "unsafe_schedule_argument",
    });
  }
  if (!hasUnsafeTerminalText(word)) return;
  throw new UsageError(
    `${what} holds a control character (${terminalText(word)}), which a schedule cannot carry as one argument`,
    { code: "unsafe_schedule_argument" },
  );
}

/**
 * `word` as one `/bin/sh` word: in single quotes, each `'` written as `'\''`. Nothing inside
 * single quotes is special to sh (`$`, backquotes, `\`, `*`, spaces).
 */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A crontab command field from sh text: cron turns an unescaped `%` into a newline (the rest of
 * the line becomes the command's stdin), so every `%` is written `\%`, which cron passes to sh
 * as `%` (crontab(5)).
 */
export function crontabCommand(shText: string): string {
  return shText.replaceAll("%", "\\%");
}

/**
 * `word` as one word of a systemd `ExecStart=` line (systemd.service(5) "Command lines",
 * systemd.syntax(7) "Quoting"): in double quotes, with `\` and `"` escaped by a backslash, `%`
 * written `%%` (specifiers) and `$` written `$$` (environment variable substitution).
 */
export function systemdQuote(word: string): string {
  return `"${systemdEscape(word).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The executable of an `ExecStart=` line (the first word): quoted as {@link systemdQuote}, but
 * `$` kept as it is, since systemd runs that path without substituting variables in it. Throws
 * UsageError `unsafe_schedule_argument` (exit 2) for a path with a quote or a backslash, which
 * systemd refuses in an executable's name.
 */
export function systemdExecutable(path: string): string {
  if (/["'\\]/.test(path)) {
    throw new UsageError(
      `the path ${path} holds a quote or a backslash, which systemd refuses in the name of the program it runs`,
      { code: "unsafe_schedule_argument" },
    );
  }
  return `"${systemdSpecifierSafe(path)}"`;
}

/**
 * `text` in a unit setting that expands specifiers but has no quoting of its own
 * (`Description=`, the path of `LoadCredential=`): `%` written `%%`.
 */
export function systemdSpecifierSafe(text: string): string {
  return text.replaceAll("%", "%%");
}

/** `%` and `$` made literal for an `ExecStart=` word (before its quotes are added). */
function systemdEscape(word: string): string {
  return systemdSpecifierSafe(word).replaceAll("$", "$$$$");
}
