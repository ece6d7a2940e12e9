import { Command, Option } from "commander";
import { addRunOptions, examples, type OpenSession, RUN_OPTIONS_HELP } from "../command-kit.js";
import type { InstallCommandOptions } from "./install.run.js";

/** Builds the `install` command. */
export function installCommand(open: OpenSession): Command {
  const cmd = new Command("install")
    .description("fetch the packs and assets svc-dl.json declares, pinned by svc-dl.lock (for CI)")
    .addOption(
      new Option(
        "--frozen",
        "never write svc-dl.lock; fail (exit 9) when it lacks an item or files differ from it",
      ).conflicts("update"),
    )
    .addOption(
      new Option(
        "--update [slug...]",
        "re-fetch the named items (every item without a slug) and record what the service serves in svc-dl.lock",
      ).conflicts("frozen"),
    )
    .option("--manifest <file>", "the manifest to read (default ./svc-dl.json)")
    .option("--no-cache", "neither read nor fill the download cache (SVC_DL_CACHE_DIR)")
    .option("--extract", "extract every pack ZIP once verified");
  return addRunOptions(cmd)
    .addHelpText(
      "after",
      `
svc-dl.json: {"dir":"vendor/assets","packs":["sci-fi-props",{"slug":"low-poly-forest","edition":"authoring","extract":true}],"assets":["free-sample-cube"]}
Items already in dir or in the cache with the locked SHA-256 cost no request (and no API key).
svc-dl.lock is written beside the manifest; commit it. A plain install adds entries for new
items and drops undeclared ones, but never rewrites an entry: files that differ from it are
exit 9 (lock_mismatch), as is --frozen with an item the lock lacks. Accept upstream changes
with --update (one line per changed entry), review the lock's diff and commit it.
${RUN_OPTIONS_HELP}
${examples(
  "svc-dl install",
  "svc-dl install --frozen",
  "svc-dl install --update sci-fi-props",
  "svc-dl install --update --json",
  "svc-dl install --manifest assets/svc-dl.json --json",
  "SVC_DL_CACHE_DIR=.cache/svc-dl svc-dl install --frozen",
  "svc-dl install --frozen --report svc-dl-report.json --metrics svc-dl.prom",
)}`,
    )
    .action(async (opts: InstallCommandOptions, cmd: Command) => {
      const { runInstallCommand } = await import("./install.run.js");
      await runInstallCommand(open(cmd), opts);
    });
}
