import { Command, Option } from "commander";
import { type ArgvCheck, examples, type OpenSession } from "../command-kit.js";
import type { ScheduleOptions } from "./schedule.run.js";

/** The help after the options: what is printed and written, and why. */
const SCHEDULE_HELP = `
Prints what runs \`svc-dl packs sync DIR\` (DIR default .) on a schedule, by the absolute paths
of this node and this svc-dl; words after -- are passed to packs sync as they are (spaces,
quotes, % and $ kept; a newline or other control character is refused), once they parse as
packs sync flags (an unknown flag or a bad value is refused: exit 2).

--systemd: a user service and timer (Persistent=true: a run missed while the machine was off
happens at the next start; RandomizedDelaySec= spreads the service's clients; exit 10, a
--max-duration stop with partial data kept, counts as success). The key reaches svc-dl by
LoadCredential=svc-api-key:KEYFILE, never in the unit. --write writes them into
$XDG_CONFIG_HOME/systemd/user (default ~/.config/systemd/user), never over a file svc-dl did not
write (exit 8 foreign_schedule_file); then run the systemctl lines it prints.

--cron: one crontab line that hands svc-dl the key by SVC_API_KEY_FILE=KEYFILE, writes --report
and --metrics, and appends its output to a log, all in $XDG_STATE_HOME/svc-dl (default
~/.local/state/svc-dl). There is no --write for cron: the crontab is yours (exit 2); add the line
with \`crontab -e\`, or \`(crontab -l; svc-dl schedule --cron DIR) | crontab -\`.

KEYFILE: --key-file, else SVC_API_KEY_FILE, else api-key in svc-dl's config directory; a file
of your own that only you can read (chmod 600), holding the key. Defaults: --every 1d, --at
03:MM with MM fixed per DIR (so clients do not all start at 03:00). The service address is
taken from the config file at run time; one given by --base-url or SVC_BASE_URL now is written
into the schedule.
${examples(
  "svc-dl schedule --systemd ~/assets --write",
  "svc-dl schedule --systemd ~/assets --every 6h -- --edition all --max-duration 50m",
  "(crontab -l; svc-dl schedule --cron ~/assets --at 02:30) | crontab -",
)}`;

/**
 * Builds `svc-dl schedule`; its run function (schedule.run.ts) is loaded when it runs.
 * `checkArgv` checks the scheduled command line before anything is printed or written.
 */
export function scheduleCommand(open: OpenSession, checkArgv: ArgvCheck): Command {
  return new Command("schedule")
    .description("print (or write) a systemd timer or a crontab line that runs packs sync DIR")
    .usage(
      "(--systemd | --cron) [DIR] [--every DURATION] [--at HH:MM] [--write] [-- SYNC-FLAGS...]",
    )
    .argument("[dir]", "directory to keep in sync (default .)")
    .argument("[sync-flags...]", "after --: flags for packs sync, passed as they are")
    .addOption(new Option("--systemd", "a systemd user service and timer").conflicts("cron"))
    .addOption(new Option("--cron", "one crontab line").conflicts("systemd"))
    .option("--every <duration>", "how often: 15m, 20m, 30m, 1h…12h, 1d or 1w (default 1d)")
    .option("--at <time>", "HH:MM, local time, of the first run of a day (default 03:MM)")
    .option("--write", "--systemd: write the units (never over a file svc-dl did not write)")
    .option(
      "--key-file <path>",
      "file holding the API key (default SVC_API_KEY_FILE, else in the config dir)",
    )
    .addHelpText("after", SCHEDULE_HELP)
    .action(
      async (dir: string | undefined, flags: string[], opts: ScheduleOptions, cmd: Command) => {
        const { runSchedule } = await import("./schedule.run.js");
        await runSchedule(open(cmd), {
          ...opts,
          ...(dir !== undefined ? { dir } : {}),
          flags,
          checkArgv,
        });
      },
    );
}
