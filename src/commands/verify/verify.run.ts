import { resolve } from "node:path";
import { toSvcError } from "../../errors/format.js";
import { OutputDir } from "../../outdir/output-dir.js";
import { checkVerifiable, forgetMissing, type VerifyItem, verifyDir } from "../../outdir/verify.js";
import type { Session } from "../../session.js";
import { classifyFailure } from "../../sync/failure.js";
import { repairItems } from "./repair.js";

/** Options of `verify`. */
export interface VerifyOptions {
  /** `--repair`: download changed and missing items again, then verify them. */
  repair?: boolean;
  /** `--forget-missing`: drop the records of recorded files that no longer exist. */
  forgetMissing?: boolean;
}

/**
 * `svc-dl verify [DIR] [--repair]` (cli-contract "verify"): re-hashes every file the state file
 * of DIR (default `.`) records and compares size and SHA-256, with no network, reading nothing
 * outside DIR. Human: one line per file on stdout (`ok`, `changed`, `missing`, `repaired` and
 * the path), a summary on stderr naming the command that repairs. `--json`:
 * `{"dir","items":[{"path","status","sha256"}]}`. With `--repair`, changed and missing items
 * are downloaded again (network and key needed), then verified; with `--forget-missing` the
 * records of missing files are dropped (`forgotten`). Sets exit 1 when any file is still
 * changed or missing; nothing recorded in an existing DIR is exit 0 ("nothing recorded").
 * Throws UsageError `dir_not_found` (exit 2) when DIR does not exist or is not a directory,
 * FileSystemError `unsafe_state_dir` (exit 8), and with `--repair`/`--forget-missing` the
 * lock's errors (and the engine's run-wide errors).
 */
export async function runVerify(
  session: Session,
  dirArg: string | undefined,
  opts: VerifyOptions = {},
): Promise<void> {
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  checkVerifiable(dir);
  const json = session.globals.json;
  const repair = opts.repair === true;
  const fixes = (i: VerifyItem) => (repair && i.status !== "ok") || forgets(opts, i);
  let items = await verifyDir(
    OutputDir.inspect(dir),
    (item) => {
      if (!json && !fixes(item)) session.print(line(item));
    },
    session.ctx.signal,
  );
  if (items.some(fixes)) {
    const { globals, reporter, ctx } = session;
    const out = await OutputDir.open(dir, {
      waitSeconds: globals.waitLock,
      onWait: (l) => reporter.info(l),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      clock: ctx.clock,
    });
    try {
      const fixed = repair ? await repairAll(session, out, items) : forgetMissing(out, items);
      await out.flush(); // a record reported forgotten is gone from the disk (throws exit 8)
      if (!json) {
        fixed.forEach((item, i) => {
          if (fixes(items[i] as VerifyItem)) session.print(line(item));
        });
      }
      items = fixed;
    } finally {
      await out.close();
    }
  }
  const bad = items.filter((i) => i.status === "changed" || i.status === "missing");
  if (json) {
    session.printJson({
      dir,
      items: items.map((i) => ({ path: i.path, status: i.status, sha256: i.sha256 })),
    });
  } else {
    session.reporter.info(summary(dir, items, bad.length > 0 && !repair));
  }
  if (bad.length > 0) session.exitCode = 1;
}

function line(item: VerifyItem): string {
  return `${item.status.padEnd(8)} ${item.path}`;
}

const forgets = (opts: VerifyOptions, i: VerifyItem): boolean =>
  opts.forgetMissing === true && i.status === "missing";

function summary(dir: string, items: readonly VerifyItem[], suggestRepair: boolean): string {
  if (items.length === 0) return `nothing recorded in ${dir}`;
  const count = (s: VerifyItem["status"]) => items.filter((i) => i.status === s).length;
  const parts = [`${count("ok")} ok`, `${count("changed")} changed`, `${count("missing")} missing`];
  if (count("repaired") > 0) parts.push(`${count("repaired")} repaired`);
  if (count("forgotten") > 0) parts.push(`${count("forgotten")} forgotten`);
  const head = `${items.length} recorded file${items.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
  if (!suggestRepair) return head;
  const forget =
    count("missing") > 0
      ? `, or \`svc-dl verify --forget-missing ${dir}\` to drop the records of files you deleted or renamed`
      : "";
  return `${head}; run \`svc-dl verify --repair ${dir}\` to download the changed and missing files again${forget}`;
}

async function repairAll(
  session: Session,
  out: OutputDir,
  items: VerifyItem[],
): Promise<VerifyItem[]> {
  const { reporter } = session;
  const client = await session.http();
  const progress = await session.progress();
  try {
    return await repairItems(
      client,
      items,
      { out, progress, onNotice: (l) => reporter.info(l) },
      (item, err) => {
        if (classifyFailure(err, "standard") === "stop") return "stop";
        const { code, message } = toSvcError(err);
        reporter.warn(code, `cannot repair ${item.path}: ${message}`);
        return "continue";
      },
    );
  } finally {
    progress.stop();
  }
}
