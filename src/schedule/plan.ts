import { checkScheduleWord } from "./quote.js";
import type { Timing } from "./timing.js";

/**
 * What a schedule runs (cli-contract "Credentials, schedules and offline runs": `svc-dl
 * schedule`): `packs sync DIR` with absolute paths, by the Node binary that runs svc-dl now,
 * the key from a file, and the flags the user gave after `--`. The systemd and cron renderers
 * (systemd.ts, crontab.ts) each quote it for their own parser.
 */
export interface SchedulePlan {
  /** The unit and file name stem (places.ts `scheduleName`). */
  readonly name: string;
  /** The directory kept in sync, absolute. */
  readonly dir: string;
  /** Absolute path of the Node binary (`process.execPath`). */
  readonly node: string;
  /** Absolute path of svc-dl's `bin/svc-dl.js`. */
  readonly script: string;
  /** Absolute path of the file holding the API key (never the key itself). */
  readonly keyFile: string;
  /** Words after `packs sync DIR`: the service address when it is not in the config, then the user's flags. */
  readonly flags: readonly string[];
  readonly timing: Timing;
  /** svc-dl's version, written into the files' mark. */
  readonly version: string;
}

/**
 * The argv of the scheduled run after the Node binary: the script, `packs sync`, DIR and the
 * flags, plus `extra` (the cron job's `--report`/`--metrics`). Throws UsageError
 * `unsafe_schedule_argument` (exit 2) for a word no schedule can carry (quote.ts).
 */
export function syncArgv(plan: SchedulePlan, extra: readonly string[] = []): string[] {
  const words = [plan.script, "packs", "sync", plan.dir, ...plan.flags, ...extra];
  checkScheduleWord(plan.node, "the path of node");
  checkScheduleWord(plan.script, "the path of svc-dl");
  checkScheduleWord(plan.dir, "DIR");
  checkScheduleWord(plan.keyFile, "the key file's path");
  for (const flag of plan.flags) checkScheduleWord(flag, "a word after --");
  return words;
}

/** True when `flags` already give `--flag` (as `--flag VALUE` or `--flag=VALUE`). */
export function givesFlag(flags: readonly string[], flag: string): boolean {
  return flags.some((f) => f === flag || f.startsWith(`${flag}=`));
}
