import type { FileOutcome } from "./progress-types.js";

/** `1536` → `1.5 KiB`; binary units, one decimal from KiB up. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Seconds as `0.4s`, `12s`, `3m05s`, `1h02m`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Bytes per second as `12.3 MiB/s`. */
export function formatRate(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) return "? B/s";
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

/**
 * The one plain line per finished file: name, size, time, rate, e.g.
 * `forest-pack.zip  12.0 MiB in 1.3s (9.2 MiB/s), resumed from 4.0 MiB`.
 * `transferred` bytes moved this run over `seconds`.
 */
export function finishedLine(info: {
  name: string;
  bytes: number;
  resumedFrom: number;
  outcome: FileOutcome;
  transferred: number;
  seconds: number;
  label?: string | undefined;
}): string {
  const prefix = info.label ? `${info.label}  ` : "";
  if (info.outcome === "up-to-date") {
    return `${prefix}${info.name}  ${formatBytes(info.bytes)}  already up to date`;
  }
  if (info.outcome === "adopted") {
    return `${prefix}${info.name}  ${formatBytes(info.bytes)}  already present with the served bytes (adopted)`;
  }
  if (info.outcome === "resumed" && info.transferred === 0) {
    // every byte was already saved (e.g. kept from a run refused by file_exists): no rate
    return `${prefix}${info.name}  ${formatBytes(info.bytes)}  completed from the bytes already saved`;
  }
  // the rate of the bytes this run moved over its time; none when no time could be measured
  const rate =
    info.seconds > 0 && info.transferred > 0
      ? ` (${formatRate(info.transferred / info.seconds)})`
      : "";
  const resumed =
    info.outcome === "resumed" ? `, resumed from ${formatBytes(info.resumedFrom)}` : "";
  return `${prefix}${info.name}  ${formatBytes(info.bytes)} in ${formatDuration(info.seconds)}${rate}${resumed}`;
}
