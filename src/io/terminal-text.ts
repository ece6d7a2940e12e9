/**
 * The one escaper of untrusted text for human output (cli-contract "Untrusted text, paths and
 * caches", terminal safety). Every string that comes from outside svc-dl (server fields and
 * headers, lock and manifest fields, file and archive entry names, error messages) goes through
 * {@link terminalText} before a human printer writes it; `--json` output never does (JSON keeps
 * its own escaping).
 *
 * Replaced by a visible escape: C0 controls (tab and newline included, so one field stays on one
 * line and cannot forge a log line), DEL, C1 controls, and the Unicode bidi and format controls
 * U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069. Two-digit `\xNN` for code points below
 * U+0100, `\uNNNN` above.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` made safe to print to a terminal or a plain log: every control or bidi/format
 * character replaced by its visible escape (`"\x1b"` → the four characters `\x1b`). Never throws;
 * `undefined` and `null` become `""`, other values are converted with `String()`.
 */
export function terminalText(text: unknown): string {
  if (text === undefined || text === null) return "";
  const s = typeof text === "string" ? text : String(text);
  return s.replace(UNSAFE, escapeOne);
}

/** True when {@link terminalText} would change `text` (it holds a control or bidi/format character). */
export function hasUnsafeTerminalText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}
