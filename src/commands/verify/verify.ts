import { Command } from "commander";
import type { VerifyItem } from "../../outdir/verify.js";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/** Options of `verify`. */
export interface VerifyOptions {
  /** `--repair`: download changed and missing items again, then verify them. */
  repair?: boolean;
}

/**
 * `svc-dl verify [DIR] [--repair]` (cli-contract "verify"): re-hashes every file the state file
 * of DIR (default `.`) records and compares size and SHA-256, with no network, reading nothing
 * outside DIR. Human: one line per file on stdout (`ok`, `changed`, `missing`, `repaired` and
 * the path), a summary on stderr naming the command that repairs. `--json`:
 * `{"dir","items":[{"path","status","sha256"}]}`. With `--repair`, changed and missing items
 * are downloaded again (network and key needed), then verified. Sets exit 1 when any file is
 * still changed or missing; nothing recorded is exit 0 ("nothing recorded"). Throws
 * FileSystemError `unsafe_state_dir` (exit 8), and with `--repair` the lock's and the
 * engine's run-wide errors.
 */
export async function runVerify(
  session: Session,
  dirArg: string | undefined,
  opts: VerifyOptions = {},
): Promise<void> {
  const { resolve } = await import("node:path");
  const { verifyDir } = await import("../../outdir/verify.js");
  const dir = resolve(session.ctx.cwd, dirArg ?? ".");
  const json = session.globals.json;
  const repair = opts.repair === true;
  let items = await verifyDir(
    dir,
    (item) => {
      if (!json && !(repair && item.status !== "ok")) session.print(line(item));
    },
    session.ctx.signal,
  );
  if (repair && items.some((i) => i.status !== "ok")) {
    items = await repairAll(session, dir, items);
    if (!json) for (const item of items) if (item.status !== "ok") session.print(line(item));
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

function summary(dir: string, items: readonly VerifyItem[], suggestRepair: boolean): string {
  if (items.length === 0) return `nothing recorded in ${dir}`;
  const count = (s: VerifyItem["status"]) => items.filter((i) => i.status === s).length;
  const parts = [`${count("ok")} ok`, `${count("changed")} changed`, `${count("missing")} missing`];
  if (count("repaired") > 0) parts.push(`${count("repaired")} repaired`);
  const head = `${items.length} recorded file${items.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
  return suggestRepair
    ? `${head}; run \`svc-dl verify --repair ${dir}\` to download the changed and missing files again`
    : head;
}

async function repairAll(
  session: Session,
  dir: string,
  items: VerifyItem[],
): Promise<VerifyItem[]> {
  const [{ repairItems }, { classifyFailure }] = await Promise.all([
    import("./repair.js"),
    import("../../sync/failure.js"),
  ]);
  const { globals, reporter } = session;
  const client = await session.http();
  const progress = await session.progress();
  try {
    return await repairItems(
      client,
      items,
      { dir, progress, waitLock: globals.waitLock, onNotice: (l) => reporter.info(l) },
      (item, err) => {
        if (classifyFailure(err, "standard") === "stop") return "stop";
        const code = (err as { code?: string }).code ?? "failed";
        reporter.warn(`cannot repair ${item.path}: ${(err as Error).message} (${code})`);
        return "continue";
      },
    );
  } finally {
    progress.stop();
  }
}

/** Builds the `verify` command. */
export function verifyCommand(open: OpenSession): Command {
  return new Command("verify")
    .description(
      "re-hash every downloaded file in DIR and report changed or missing ones (offline)",
    )
    .argument("[dir]", "directory svc-dl downloaded into", ".")
    .option("--repair", "download changed and missing files again (needs the network), then verify")
    .addHelpText(
      "after",
      examples(
        "svc-dl verify",
        "svc-dl verify ~/assets",
        "svc-dl verify ~/assets --repair",
        "svc-dl verify ~/assets --json | jq '.items[] | select(.status != \"ok\")'",
      ),
    )
    .action(async (dir: string | undefined, opts: VerifyOptions, cmd: Command) => {
      await runVerify(open(cmd), dir, opts);
    });
}
