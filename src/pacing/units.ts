/**
 * The value syntaxes of `--limit-rate` and `--max-duration` (cli-contract "Operating
 * unattended"). No imports: the program tree parses `--max-duration` at start-up.
 */

const RATE_UNITS: Readonly<Record<string, number>> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };
const DURATION_UNITS: Readonly<Record<string, number>> = { "": 1, s: 1, m: 60, h: 3600 };

/** Slowest `--limit-rate` accepted: below it the low-speed rule (1 KiB/s over 60 s) would cut transfers. */
export const MIN_RATE_BYTES_PER_SECOND = 2048;

/**
 * Bytes per second of a `--limit-rate` value in curl's syntax: a number with an optional `K`,
 * `M` or `G` suffix (any case; powers of 1024; a trailing `B` allowed), e.g. `500K`, `5M`,
 * `1.5G`, `65536`. Undefined for anything else or a rate below {@link MIN_RATE_BYTES_PER_SECOND}.
 */
export function rateBytesPerSecond(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*$/.exec(text);
  const unit = RATE_UNITS[(m?.[2] ?? "").toUpperCase()];
  if (!m || unit === undefined) return undefined;
  const rate = Math.floor(Number(m[1]) * unit);
  return rate >= MIN_RATE_BYTES_PER_SECOND ? rate : undefined;
}

/**
 * Seconds of a `--max-duration` value: `90s`, `30m`, `2h`, or a plain number of seconds
 * (decimals allowed). Undefined for anything else or a duration that is not above 0.
 */
export function durationSeconds(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$/.exec(text);
  const unit = DURATION_UNITS[m?.[2] ?? ""];
  if (!m || unit === undefined) return undefined;
  const seconds = Number(m[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
