import { resolve } from "node:path";
import type { VerifySummary } from "../../documents/runs.js";
import { counted } from "../../io/plural.js";
import type { WarningCode } from "../../io/reporter.js";
import type { VerifyItem } from "../../outdir/verify.js";
import type { RunRecorder } from "../../run/recorder.js";
import type { Session } from "../../session.js";
import { notOk } from "../../verify/document.js";
import { verifyRun } from "../../verify/run.js";
import type { RunOutputFlags } from "../command-kit.js";
import { recordRun, runSinks } from "../shared/record-run.js";

/** Options of `verify`. */
export interface VerifyOptions extends RunOutputFlags {
  /** `--repair`: download changed and missing items again, then verify them. */
  repair?: boolean;
  /** `--forget-missing`: drop the records of recorded files that no longer exist. */
  forgetMissing?: boolean;
}

/**
 * `svc-dl verify [DIR] [--repair]` (cli-contract "verify", "Operating unattended"): re-hashes
 * every file the state file of DIR (default `.`) records and compares size and SHA-256, with no
 * network, reading nothing outside DIR. Human: one line per file on stdout (`ok`, `changed`,
 * `missing`, `repaired` and the path), a summary on stderr naming the command that repairs.
 * `--json`: the document of src/verify/document.ts. With `--repair`, changed and missing items are downloaded
 * again (network and key needed), then verified; with `--forget-missing` the records of missing
 * files are dropped (`forgotten`). A run of the run layer (src/run/): `--report`, `--metrics`,
 * `--on-item` (after each item's verdict is final), the plain-log header and time stamps;
 * with `--max-duration`, files not hashed and repairs not finished at the deadline are
 * `deferred` (the repair stopped at it with `error` `deadline_reached`), exit 10.
 * Sets exit 1 when any file is still changed or missing; nothing recorded in an existing DIR is
 * exit 0 ("nothing recorded"). Throws UsageError `dir_not_found` (exit 2) when DIR does not
 * exist or is not a directory, FileSystemError `unsafe_state_dir` (exit 8), and with
 * `--repair`/`--forget-missing` the lock's errors (and the engine's run-wide errors).
 */
export async function runVerify(
  session: Session,
  dirArg: string | undefined,
  opts: VerifyOptions = {},
): Promise<void> {
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  const sinks = runSinks(opts);
  await recordRun(session, { command: "verify", dir, sinks }, (run) =>
    verifyInto(session, dir, opts, run),
  );
}

/** The body of {@link runVerify}: the shared run (src/verify/run.ts), printed for a person. */
async function verifyInto(
  session: Session,
  dir: string,
  opts: VerifyOptions,
  run: RunRecorder,
): Promise<void> {
  const { globals, reporter, ctx } = session;
  const json = globals.json;
  const repair = opts.repair === true;
  const doc = await verifyRun(
    {
      dir,
      repair,
      forgetMissing: opts.forgetMissing,
      waitLock: globals.waitLock,
      signal: ctx.signal,
      clock: ctx.clock,
      deadline: session.deadline,
      hints: session.hints,
      services: () => session.services(),
      progress: () => session.progress(),
    },
    run,
    {
      final: (item) => {
        if (json) return;
        // -q: only the files that are not ok (as `sha256sum --quiet`)
        if (!(globals.quiet && ok(item))) session.print(line(item));
        if (item.damage !== undefined) reporter.info(`${item.path}: ${item.damage}`);
      },
      notice: (l) => reporter.info(l),
      repairFailed: (item, error) => {
        reporter.warn(error.code as WarningCode, `cannot repair ${item.path}: ${error.message}`);
        if (error.hint) reporter.hint(error.hint);
      },
      summaryLine: (d) => summary(dir, d, false),
    },
  );
  const full = run.complete(doc);
  const bad = notOk(full);
  if (json) session.printJson(full);
  else reporter.info(summary(dir, full, bad > 0 && !repair));
  if (bad > 0) session.exitCode = 1;
}

const ok = (item: VerifyItem): boolean => item.status === "ok";

function line(item: VerifyItem): string {
  return `${item.status.padEnd(8)} ${item.path}`;
}

function summary(
  dir: string,
  doc: { items: unknown[]; summary: VerifySummary },
  suggestRepair: boolean,
): string {
  if (doc.items.length === 0) return `nothing recorded in ${dir}`;
  const s = doc.summary;
  const parts = [`${s.ok} ok`, `${s.changed} changed`];
  if (s.damaged) parts.push(`${s.damaged} damaged`);
  parts.push(`${s.missing} missing`);
  if (s.repaired) parts.push(`${s.repaired} repaired`);
  if (s.forgotten) parts.push(`${s.forgotten} forgotten`);
  if (s.deferred) parts.push(`${s.deferred} deferred to the next run`);
  const n = doc.items.length;
  const head = `${counted(n, "recorded file")}: ${parts.join(", ")}`;
  if (!suggestRepair) return head;
  const forget =
    s.missing > 0
      ? `, or \`svc-dl verify --forget-missing ${dir}\` to drop the records of files you deleted or renamed`
      : "";
  return `${head}; run \`svc-dl verify --repair ${dir}\` to download the changed, damaged and missing files again${forget}`;
}
