import { createHash } from "node:crypto";
import { UsageError } from "../errors/usage-error.js";

/**
 * When a scheduled `packs sync` runs (cli-contract "Credentials, schedules and offline runs":
 * `--every DURATION`, `--at HH:MM`), as one model that both a systemd `OnCalendar=` and a
 * crontab's five fields can express exactly: an interval that divides an hour or a day (or a
 * week), anchored at a time of day. The runs of a day are the anchor plus whole intervals.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** `--every` when not given: once a day. */
export const DEFAULT_EVERY = "1d";

/** The hour of the default anchor (03:MM, local time), a quiet hour for most users. */
const DEFAULT_HOUR = 3;

/** The intervals a schedule accepts, in seconds, as the help and errors name them. */
const INTERVALS: readonly (readonly [string, number])[] = [
  ["15m", 15 * MINUTE],
  ["20m", 20 * MINUTE],
  ["30m", 30 * MINUTE],
  ["1h", HOUR],
  ["2h", 2 * HOUR],
  ["3h", 3 * HOUR],
  ["4h", 4 * HOUR],
  ["6h", 6 * HOUR],
  ["8h", 8 * HOUR],
  ["12h", 12 * HOUR],
  ["1d", DAY],
  ["1w", WEEK],
];

/** The accepted `--every` values, for help and errors: "15m, 20m, …, 1d, 1w". */
export const EVERY_CHOICES = INTERVALS.map(([name]) => name).join(", ");

/** Seconds of each duration unit of `--every` (a bare number is seconds). */
const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  s: 1,
  m: MINUTE,
  h: HOUR,
  d: DAY,
  w: WEEK,
};

/** A schedule: every `seconds`, at `hour`:`minute` (local time) and whole intervals from it. */
export interface Timing {
  /** The interval, one of the accepted ones. */
  readonly seconds: number;
  /** The interval as `--every` names it (`6h`). */
  readonly every: string;
  /** The anchor's hour, 0–23. */
  readonly hour: number;
  /** The anchor's minute, 0–59. */
  readonly minute: number;
}

/**
 * The timing of `--every` and `--at`. `every` is a duration (`30m`, `6h`, `1d`, `1w`, or
 * seconds) equal to one of {@link EVERY_CHOICES}; `at` is `HH:MM` on a 24-hour clock. Without
 * `at`, the anchor is 03:MM where MM is drawn from `seed` (the directory synced), so that
 * clients spread over the hour instead of all asking at 03:00, and printing the schedule twice
 * gives the same schedule. Throws UsageError `invalid_schedule` (exit 2) for any other value.
 */
export function parseTiming(
  every: string | undefined,
  at: string | undefined,
  seed: string,
): Timing {
  const seconds = everySeconds(every ?? DEFAULT_EVERY);
  const name = INTERVALS.find(([, s]) => s === seconds)?.[0] ?? DEFAULT_EVERY;
  if (at === undefined)
    return { seconds, every: name, hour: DEFAULT_HOUR, minute: seededMinute(seed) };
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(at.trim());
  if (!m) {
    throw new UsageError(
      `--at: ${JSON.stringify(at)} is not a time of day (HH:MM, 00:00 to 23:59)`,
      {
        code: "invalid_schedule",
      },
    );
  }
  return { seconds, every: name, hour: Number(m[1]), minute: Number(m[2]) };
}

function everySeconds(text: string): number {
  const m = /^\s*(\d+)\s*([smhdw]?)\s*$/.exec(text);
  const unit = UNITS[m?.[2] ?? ""];
  const seconds = m && unit !== undefined ? Number(m[1]) * unit : undefined;
  if (seconds !== undefined && INTERVALS.some(([, s]) => s === seconds)) return seconds;
  throw new UsageError(
    `--every: ${JSON.stringify(text)} is not an interval a schedule can keep exactly (one of ${EVERY_CHOICES})`,
    { code: "invalid_schedule" },
  );
}

/** A minute 0–59 drawn from `seed`, the same for the same seed. */
function seededMinute(seed: string): number {
  return createHash("sha256").update(seed).digest().readUInt16BE(0) % 60;
}

/** The minutes (sub-hourly) or hours (sub-daily) of a day's runs, from the anchor, ascending. */
function steps(start: number, step: number, span: number): number[] {
  const out: number[] = [];
  for (let v = start % step; v < span; v += step) out.push(v);
  return out;
}

/** The five time fields of a crontab line for `t` (crontab(5)): minute hour day month weekday. */
export function cronFields(t: Timing): string {
  if (t.seconds < HOUR) return `${steps(t.minute, t.seconds / MINUTE, 60).join(",")} * * * *`;
  if (t.seconds < DAY) return `${t.minute} ${steps(t.hour, t.seconds / HOUR, 24).join(",")} * * *`;
  return `${t.minute} ${t.hour} * * ${t.seconds === WEEK ? "1" : "*"}`;
}

/** The `OnCalendar=` value for `t` (systemd.time(7)), local time. */
export function onCalendar(t: Timing): string {
  const mm = String(t.minute).padStart(2, "0");
  const hh = String(t.hour).padStart(2, "0");
  if (t.seconds < HOUR) {
    return `*-*-* *:${steps(t.minute, t.seconds / MINUTE, 60)
      .map(pad)
      .join(",")}:00`;
  }
  if (t.seconds < DAY)
    return `*-*-* ${steps(t.hour, t.seconds / HOUR, 24)
      .map(pad)
      .join(",")}:${mm}:00`;
  return `${t.seconds === WEEK ? "Mon " : ""}*-*-* ${hh}:${mm}:00`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * `RandomizedDelaySec=` for `t`: half the interval, at most 30 minutes, so the clients of the
 * service do not all ask in the same minute (its rate limit is per account, its capacity shared).
 */
export function randomizedDelaySeconds(t: Timing): number {
  return Math.min(t.seconds / 2, 30 * MINUTE);
}

/** How `t` reads in a sentence: "every 6h from 01:30" / "every day at 03:17". */
export function describeTiming(t: Timing): string {
  const at = `${pad(t.hour)}:${pad(t.minute)}`;
  if (t.seconds === DAY) return `every day at ${at}`;
  if (t.seconds === WEEK) return `every Monday at ${at}`;
  return `every ${t.every} from ${t.seconds < HOUR ? `minute ${pad(t.minute % (t.seconds / MINUTE))}` : at}`;
}
