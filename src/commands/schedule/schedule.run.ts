import { lstatSync } from "node:fs";
import { join, resolve } from "node:path";
import { baseUrlString } from "../../config/base-url.js";
import { readKeyFile } from "../../config/key-file.js";
import { programPaths } from "../../context.js";
import type { ScheduleDocument } from "../../documents/commands.js";
import { SvcError } from "../../errors/svc-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { cronFiles, crontabLine } from "../../schedule/crontab.js";
import {
  defaultKeyFile,
  scheduleName,
  scheduleStateDir,
  systemdUserDir,
} from "../../schedule/places.js";
import { givesFlag, type SchedulePlan } from "../../schedule/plan.js";
import { shellQuote } from "../../schedule/quote.js";
import { systemdUnits } from "../../schedule/systemd.js";
import { parseTiming } from "../../schedule/timing.js";
import { type WrittenFile, writeScheduleFiles } from "../../schedule/write-units.js";
import type { Session } from "../../session.js";
import type { ArgvCheck } from "../command-kit.js";

/** The options of `svc-dl schedule` as commander parses them. */
export interface ScheduleOptions {
  systemd?: boolean;
  cron?: boolean;
  every?: string;
  at?: string;
  write?: boolean;
  keyFile?: string;
}

/** What {@link runSchedule} takes: the parsed options, DIR and the words after `--`. */
export interface ScheduleRunOptions extends ScheduleOptions {
  dir?: string;
  flags: readonly string[];
  /** Checks the scheduled `packs sync` command line without running it (src/cli.ts). */
  checkArgv?: ArgvCheck;
}

/**
 * `svc-dl schedule` (cli-contract "Credentials, schedules and offline runs"): prints the systemd
 * units or the crontab line that run `packs sync DIR` on a schedule, or with `--systemd
 * --write` writes the units (schedule/write-units.ts). stdout carries the units or the line
 * (with `--json` one document: `{"kind","name","files"|"line",…}`); stderr the next steps.
 * The words after `--` are checked as `packs sync DIR WORDS` would parse them: a schedule
 * that would fail at every run is refused (exit 2 `invalid_schedule`).
 * Throws UsageError `invalid_schedule` / `unsafe_schedule_argument` (exit 2), FileSystemError
 * `unsafe_key_file`, `foreign_schedule_file`, `unsafe_output_path` and write failures (exit 8).
 */
export async function runSchedule(session: Session, opts: ScheduleRunOptions): Promise<void> {
  const kind = scheduleKind(opts);
  const notes: string[] = [];
  const plan = await makePlan(session, opts, notes);
  if (kind === "cron") printCron(session, plan);
  else printSystemd(session, plan, opts.write === true);
  for (const note of notes) session.reporter.info(`note: ${note}`);
}

function scheduleKind(opts: ScheduleRunOptions): "systemd" | "cron" {
  if (opts.cron && opts.write) {
    throw new UsageError("--write writes systemd units only; svc-dl does not edit your crontab", {
      code: "invalid_schedule",
      detail: { cronWrite: true },
    });
  }
  if (opts.systemd) return "systemd";
  if (opts.cron) return "cron";
  throw new UsageError("schedule needs --systemd or --cron", { code: "invalid_schedule" });
}

/** The plan of the run; what the user should know before the first run goes to `notes`. */
async function makePlan(
  session: Session,
  opts: ScheduleRunOptions,
  notes: string[],
): Promise<SchedulePlan> {
  const { ctx } = session;
  if (opts.dir?.startsWith("-")) {
    throw new UsageError(
      `DIR ${JSON.stringify(opts.dir)} looks like a flag: name DIR before --, e.g. \`svc-dl schedule --systemd . -- ${opts.dir}\``,
      { code: "invalid_schedule" },
    );
  }
  const dir = resolve(ctx.cwd, opts.dir ?? ".");
  const timing = parseTiming(opts.every, opts.at, dir);
  const problem = await opts.checkArgv?.(["packs", "sync", dir, ...opts.flags]);
  if (problem !== undefined) {
    throw new UsageError(`the words after -- would fail every scheduled run: ${problem}`, {
      code: "invalid_schedule",
      detail: { syncFlags: true },
    });
  }
  const keyFile = resolve(ctx.cwd, opts.keyFile ?? defaultKeyFile(ctx.env));
  if (!checkKeyFile(keyFile)) {
    notes.push(
      `the key file ${keyFile} does not exist yet; make it before the first run: (umask 077; cat > ${shellQuote(keyFile)}), paste the key, Ctrl-D`,
    );
  }
  const { node, script } = programPaths();
  return {
    name: scheduleName(dir),
    dir,
    node,
    script,
    keyFile,
    flags: [...(await serviceAddress(session, opts.flags, notes)), ...opts.flags],
    timing,
    version: ctx.version,
  };
}

/**
 * `--base-url URL` for the scheduled run when the address comes from `--base-url` or
 * `SVC_BASE_URL` now (a timer or cron job has neither); nothing when it is in the config file
 * (read at run time) or in the user's flags. No address anywhere: a warning, not an error (it
 * can be set before the first run).
 */
async function serviceAddress(
  session: Session,
  flags: readonly string[],
  notes: string[],
): Promise<string[]> {
  if (givesFlag(flags, "--base-url")) return [];
  try {
    const { url, source } = await session.baseUrl();
    return source === "config" ? [] : ["--base-url", baseUrlString(url)];
  } catch (err) {
    if (!(err instanceof SvcError) || err.code !== "no_base_url") throw err;
    notes.push(
      "no service address is set; set it before the first run: svc-dl config set base-url URL",
    );
    return [];
  }
}

/**
 * Checks the key file the schedule names under the key-file rules (config/key-file.ts: throws
 * FileSystemError `unsafe_key_file`, exit 8), so a schedule is not printed that would fail at
 * every run. Returns false when nothing is there yet (the caller says how to make it).
 */
function checkKeyFile(path: string): boolean {
  try {
    lstatSync(path);
  } catch {
    return false;
  }
  readKeyFile(path, "the schedule's key file");
  return true;
}

function printCron(session: Session, plan: SchedulePlan): void {
  const stateDir = scheduleStateDir(session.ctx.env);
  const line = crontabLine(plan, stateDir);
  const { log } = cronFiles(plan, stateDir);
  if (session.globals.json) {
    session.printJson({ kind: "cron", name: plan.name, line, log } satisfies ScheduleDocument);
    return;
  }
  session.print(line);
  session.reporter.info(
    `Add this line with \`crontab -e\`; each run appends its output to ${log}.`,
  );
}

function printSystemd(session: Session, plan: SchedulePlan, write: boolean): void {
  const unitDir = systemdUserDir(session.ctx.env);
  const units = systemdUnits(plan);
  const written: readonly (WrittenFile | undefined)[] = write
    ? writeScheduleFiles(unitDir, units)
    : [];
  const next = [
    "systemctl --user daemon-reload",
    `systemctl --user enable --now ${plan.name}.timer`,
    'loginctl enable-linger "$USER"',
  ];
  if (session.globals.json) {
    session.printJson({
      kind: "systemd",
      name: plan.name,
      files: units.map((u, i) => ({
        path: join(unitDir, u.name),
        text: u.text,
        action: written[i]?.action ?? null,
      })),
      next,
    } satisfies ScheduleDocument);
    return;
  }
  if (write) {
    for (const w of written) if (w) session.reporter.info(`${w.action} ${w.path}`);
  } else {
    session.print(units.flatMap((u) => [`# ${join(unitDir, u.name)}`, ...u.text.split("\n")]));
    session.reporter.info(`Write these files with --write (into ${unitDir}), then run:`);
  }
  if (write) session.reporter.info("Now run:");
  for (const line of next) session.reporter.info(`  ${line}`);
  session.reporter.info("(enable-linger: the timer also runs while you are logged out)");
}
