import { join } from "node:path";
import { givesFlag, type SchedulePlan, syncArgv } from "./plan.js";
import { checkScheduleWord, crontabCommand, shellQuote } from "./quote.js";
import { cronFields } from "./timing.js";

/**
 * The crontab line of a schedule (cli-contract "Credentials, schedules and offline runs":
 * `svc-dl schedule --cron`): the five time fields, then an sh command that makes the state
 * folder (0700), hands svc-dl the key by `SVC_API_KEY_FILE` (the file's path, never the key),
 * runs `packs sync DIR` by absolute paths with `--report` and `--metrics` in that folder (unless
 * the user's flags give their own), and appends stdout and stderr to a log file there. Every
 * word is quoted for sh, and every `%` escaped for cron.
 */

/** The files of a cron job, in the schedule's state folder (places.ts `scheduleStateDir`). */
export interface CronFiles {
  readonly log: string;
  readonly report: string;
  readonly metrics: string;
}

/** The log, report and metrics files of `plan` in `stateDir`. */
export function cronFiles(plan: SchedulePlan, stateDir: string): CronFiles {
  return {
    log: join(stateDir, `${plan.name}.log`),
    report: join(stateDir, `${plan.name}.report.json`),
    metrics: join(stateDir, `${plan.name}.prom`),
  };
}

/**
 * The crontab line (no newline) for `plan`, its files in `stateDir`. Throws UsageError
 * `unsafe_schedule_argument` (exit 2) for a word no crontab line can carry (quote.ts).
 */
export function crontabLine(plan: SchedulePlan, stateDir: string): string {
  const files = cronFiles(plan, stateDir);
  checkScheduleWord(stateDir, "the state folder's path");
  const extra = [
    ...(givesFlag(plan.flags, "--report") ? [] : ["--report", files.report]),
    ...(givesFlag(plan.flags, "--metrics") ? [] : ["--metrics", files.metrics]),
  ];
  const argv = [plan.node, ...syncArgv(plan, extra)].map(shellQuote).join(" ");
  const sh = [
    `mkdir -p -m 700 ${shellQuote(stateDir)} &&`,
    `SVC_API_KEY_FILE=${shellQuote(plan.keyFile)} ${argv}`,
    `>> ${shellQuote(files.log)} 2>&1`,
  ].join(" ");
  return `${cronFields(plan.timing)} ${crontabCommand(sh)}`;
}
