import { Command, Option } from "commander";
import {
  addRunOptions,
  examples,
  type OpenSession,
  parseWholeNumber,
  RUN_OPTIONS_HELP,
} from "../command-kit.js";
import type { PacksSyncOptions } from "./sync.run.js";

/** Commander's collector of a repeatable option. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Builds the `packs sync` command. */
export function packsSyncCommand(open: OpenSession): Command {
  const cmd = new Command("sync")
    .description(
      "download every pack you own into DIR (default .) that DIR lacks; for cron jobs and CI",
    )
    .argument("[dir]", "directory to keep in sync (created if missing)")
    .addOption(
      new Option("--edition <edition>", "which editions to keep")
        .choices(["standard", "authoring", "all"])
        .default("standard"),
    )
    .option("--refresh", "re-check complete packs with one conditional request each (ETag)")
    .option("--dry-run", "list what would be downloaded and why; download nothing")
    .option(
      "--checksum",
      "re-hash every recorded file and re-download any whose SHA-256 differs (repaired)",
    )
    .option("--include <glob>", "only packs whose slug matches (repeatable; * ? [...])", collect)
    .option("--exclude <glob>", "leave out packs whose slug matches (repeatable; wins)", collect)
    .option("--category <name>", "only packs with this category (repeatable, any case)", collect)
    .option("--extract", "unpack each pack ZIP into DIR/<file name without .zip>/ (ZIPs kept)")
    .option("--prune", "move files of packs you no longer own to DIR/.svc-dl/trash/<date>/")
    .option(
      "--max-delete <n>",
      "--prune moves at most N files, else nothing (default 20)",
      parseWholeNumber,
    );
  return addRunOptions(cmd)
    .addHelpText(
      "after",
      `
Packs already complete in DIR (per DIR/.svc-dl/state.json, and on disk with the recorded size
and modification time, or the recorded SHA-256 after a re-hash) are skipped without any
download request; a changed file is downloaded again (repaired). A file in DIR that svc-dl has
no record of is adopted when it holds exactly the served bytes, else the pack fails with
file_exists. --checksum re-hashes every file. --edition all adds the authoring edition where a
pack has one. --include/--exclude take shell globs (* ? [...]) matched against the whole slug,
case-sensitive (exclude wins); --category keeps packs with any of the named categories (any
case); left-out packs are never requested and counted in summary.filtered. --extract unpacks
each ZIP into DIR/<file name without .zip>/ (unchanged archives are not unpacked again).
Exit 1 when some packs failed (the others are synced); an account-level failure (bad or
revoked key, API disabled, blocked) stops at once with its own exit code; 8 when another run
holds DIR's lock (--wait-lock SECONDS waits for it); 10 when --max-duration ended the run
before every pack was synced (partial data kept; packs not started are reported deferred).
${RUN_OPTIONS_HELP}
${examples(
  "svc-dl packs sync ~/assets",
  "svc-dl packs sync ~/assets --edition all --refresh",
  "svc-dl packs sync ~/assets --dry-run",
  "svc-dl packs sync ~/assets --checksum",
  "svc-dl --wait-lock 600 packs sync ~/assets",
  "svc-dl packs sync ~/assets --include 'forest-*' --extract",
  "svc-dl packs sync ./packs --json --quiet > sync-report.json",
  "svc-dl packs sync ~/assets --report sync.json --metrics /var/lib/node_exporter/svc-dl.prom",
  "svc-dl packs sync ~/assets --on-item 'logger -t svc-dl \"$SVC_DL_ITEM_SLUG $SVC_DL_ITEM_STATUS\"'",
  "svc-dl --max-duration 2h --limit-rate 5M packs sync ~/assets",
  "svc-dl packs sync ~/assets --prune --dry-run",
)}`,
    )
    .action(async (dir: string | undefined, opts: PacksSyncOptions, cmd: Command) => {
      const { runPacksSync } = await import("./sync.run.js");
      await runPacksSync(open(cmd), dir, opts);
    });
}
