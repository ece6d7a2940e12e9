/**
 * Time in plain logs (cli-contract "Operating unattended": plain logs carry time): the header
 * line a run begins with and the `HH:MM:SS ` before each line, in the machine's local time.
 */

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** `21:04:05`: the local wall-clock time of `ms` (ms since the epoch). */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** `2026-11-24T22:04:05+01:00`: ISO-8601 local time with its UTC offset (`+00:00` for UTC). */
export function localIsoTime(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const date = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  return `${date}T${clockTime(ms)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** `svc-dl 0.2.0 packs sync started 2026-11-24T22:04:05+01:00`. */
export function runHeader(version: string, command: string, ms: number): string {
  return `svc-dl ${version} ${command} started ${localIsoTime(ms)}`;
}
