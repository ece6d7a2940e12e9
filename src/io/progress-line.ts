import { formatBytes, formatDuration, formatRate } from "./progress-format.js";

/** What one redraw of a file's bar shows. Sizes in bytes, rate in bytes per second. */
export interface BarLine {
  name: string;
  bytes: number;
  /** Final size, when known. */
  total: number | undefined;
  rate: number;
  /** A prefix such as `pack 3/12`. */
  label?: string | undefined;
}

/** Fewest characters a shortened file name keeps before the bar itself shrinks. */
const MIN_NAME = 12;
/** Bar widths tried, widest first; 0 means no bar. */
const BAR_WIDTHS = [30, 24, 16, 10, 0] as const;

/**
 * Shortens `name` to `width` characters by cutting its middle (`forest-pa…standard.zip`), so the
 * start and the extension stay readable.
 */
export function shortenName(name: string, width: number): string {
  const chars = [...name];
  if (chars.length <= width) return name;
  if (width <= 1) return "…".slice(0, width);
  const tail = Math.min(Math.floor((width - 1) / 2), 12);
  const head = width - 1 - tail;
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}

function bar(fraction: number, width: number): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `${"█".repeat(full)}${"░".repeat(width - full)}`;
}

/**
 * One line of a file's progress bar that fits `columns` (cli-contract "Streams and output"): at
 * 80 columns name, bar, percent, bytes, rate and ETA. When space runs short the name is
 * shortened first (down to 12 characters), then the bar narrows and goes, then ETA, rate and
 * bytes go, in that order; the percentage stays. Never longer than `columns - 1` (the last
 * column would wrap on some terminals).
 */
export function renderBarLine(line: BarLine, columns: number): string {
  const width = Math.max(10, columns - 1);
  const prefix = line.label ? `${line.label}  ` : "";
  const sized = line.total !== undefined && line.total > 0;
  const total = line.total ?? 0;
  const fraction = sized ? line.bytes / total : 0;
  const eta = sized && line.rate > 0 ? (total - line.bytes) / line.rate : Number.NaN;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const fields = sized
    ? [
        percent,
        `${formatBytes(line.bytes)}/${formatBytes(total)}`,
        formatRate(line.rate),
        `ETA ${formatDuration(eta)}`,
      ]
    : [formatBytes(line.bytes), formatRate(line.rate)];
  for (let keep = fields.length; keep >= 1; keep--) {
    const right = fields.slice(0, keep).join("  ");
    for (const barWidth of sized ? BAR_WIDTHS : [0]) {
      const barPart = barWidth > 0 ? ` ${bar(fraction, barWidth)}` : "";
      const room = width - prefix.length - barPart.length - 1 - right.length;
      if (room >= Math.min([...line.name].length, MIN_NAME)) {
        return `${prefix}${shortenName(line.name, room)}${barPart} ${right}`;
      }
    }
  }
  return shortenName(`${prefix}${line.name} ${fields[0] ?? ""}`, width);
}
