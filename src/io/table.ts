import { terminalText } from "./terminal-text.js";

/**
 * Renders rows as the lines of a plain-text table with a header line, columns padded to their
 * widest cell (no box drawing, so it stays friendly to grep and cut). Every cell is escaped by
 * `terminalText()` before it is measured (cli-contract "Untrusted text, paths and caches"), so a
 * name from the service can neither drive the terminal nor break the columns.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string[] {
  const safe = rows.map((r) => r.map(terminalText));
  const widths = headers.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...safe.map(line)];
}
