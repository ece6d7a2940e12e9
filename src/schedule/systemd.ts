import { SYSTEMD_CREDENTIAL_NAME } from "../config/key-file.js";
import { UsageError } from "../errors/usage-error.js";
import { type SchedulePlan, syncArgv } from "./plan.js";
import { systemdExecutable, systemdQuote, systemdSpecifierSafe } from "./quote.js";
import { describeTiming, onCalendar, randomizedDelaySeconds } from "./timing.js";

/**
 * The systemd user service and timer of a schedule (cli-contract "Credentials, schedules and
 * offline runs": `svc-dl schedule --systemd`): a oneshot service that runs `packs sync DIR`
 * with the absolute paths of node and svc-dl and the key handed over by `LoadCredential=` from
 * a file (svc-dl reads `$CREDENTIALS_DIRECTORY/svc-api-key`, config/key-file.ts), never the key
 * itself; exit 10 (`--max-duration` reached, partial data kept) counts as success; and a timer
 * with `Persistent=true` (a run missed while the machine was off happens at the next boot) and
 * a `RandomizedDelaySec=` that spreads the service's clients over time.
 */

/** Exit code of a run that `--max-duration` ended with its partial data kept (cli-contract "Exit codes"). */
const DEADLINE_EXIT_CODE = 10;

/** The first line of every file svc-dl writes for a schedule: how it knows the file is its own. */
export const SCHEDULE_MARK = "# Written by `svc-dl schedule`";

/** A file of a schedule: its name in the unit directory and its text. */
export interface ScheduleFile {
  readonly name: string;
  readonly text: string;
}

/** The mark line of a file written by svc-dl `version` (the rest says how to take it over). */
export function markLine(version: string): string {
  return `${SCHEDULE_MARK} (svc-dl ${version}), which rewrites it; delete this line to keep your own edits.`;
}

/**
 * `<name>.service` and `<name>.timer` for `plan`. Throws UsageError `unsafe_schedule_argument`
 * (exit 2) for a word no unit can carry (quote.ts).
 */
export function systemdUnits(plan: SchedulePlan): [ScheduleFile, ScheduleFile] {
  checkSettingValue(plan.keyFile, "the key file's path");
  const args = syncArgv(plan).map(systemdQuote);
  const exec = [systemdExecutable(plan.node), ...args].join(" ");
  const what = systemdSpecifierSafe(plan.dir);
  const when = describeTiming(plan.timing);
  const service = [
    markLine(plan.version),
    "[Unit]",
    `Description=svc-dl: packs sync of ${what} (${when})`,
    "",
    "[Service]",
    "Type=oneshot",
    `ExecStart=${exec}`,
    `LoadCredential=${SYSTEMD_CREDENTIAL_NAME}:${systemdSpecifierSafe(plan.keyFile)}`,
    `SuccessExitStatus=${DEADLINE_EXIT_CODE}`,
    "",
  ].join("\n");
  const timer = [
    markLine(plan.version),
    "[Unit]",
    `Description=svc-dl: packs sync of ${what} (${when})`,
    "",
    "[Timer]",
    `OnCalendar=${onCalendar(plan.timing)}`,
    "Persistent=true",
    `RandomizedDelaySec=${randomizedDelaySeconds(plan.timing)}`,
    `Unit=${plan.name}.service`,
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n");
  return [
    { name: `${plan.name}.service`, text: service },
    { name: `${plan.name}.timer`, text: timer },
  ];
}

/**
 * Throws UsageError `unsafe_schedule_argument` (exit 2) for a value of an unquoted setting
 * (`LoadCredential=`'s path) that systemd would read otherwise: surrounding whitespace is
 * dropped, and a backslash at the end of a line joins the next line to it.
 */
function checkSettingValue(value: string, what: string): void {
  if (value.trim() === value && !value.endsWith("\\")) return;
  throw new UsageError(
    `${what} ${JSON.stringify(value)} begins or ends with a space or ends with a backslash, which a unit file cannot hold as it is`,
    { code: "unsafe_schedule_argument" },
  );
}
