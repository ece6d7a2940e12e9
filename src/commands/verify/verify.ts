import { Command, Option } from "commander";
import { addRunOptions, examples, type OpenSession, RUN_OPTIONS_HELP } from "../command-kit.js";
import type { VerifyOptions } from "./verify.run.js";

/** Builds the `verify` command; its run function (verify.run.ts) is loaded when it runs. */
export function verifyCommand(open: OpenSession): Command {
  const cmd = new Command("verify")
    .description(
      "re-hash and format-check every downloaded file in DIR; report changed, damaged or missing ones (offline)",
    )
    .argument("[dir]", "directory svc-dl downloaded into", ".")
    .option(
      "--repair",
      "download changed, damaged and missing files again (needs the network), then verify",
    )
    .addOption(
      new Option(
        "--forget-missing",
        "drop the records of missing files (ones you deleted or renamed)",
      ).conflicts("repair"),
    );
  return addRunOptions(cmd)
    .addHelpText(
      "after",
      `
Exit 1 when a file is still changed, damaged or missing, 0 when every file is ok (or nothing is
recorded). -q prints only the files that are not ok.
${RUN_OPTIONS_HELP}
${examples(
  "svc-dl verify",
  "svc-dl verify ~/assets",
  "svc-dl verify ~/assets --repair",
  "svc-dl verify ~/assets --forget-missing",
  "svc-dl verify ~/assets --json | jq '.items[] | select(.status != \"ok\")'",
  "svc-dl verify ~/assets --report verify.json --metrics /var/lib/node_exporter/svc-dl-verify.prom",
)}`,
    )
    .action(async (dir: string | undefined, opts: VerifyOptions, cmd: Command) => {
      const { runVerify } = await import("./verify.run.js");
      await runVerify(open(cmd), dir, opts);
    });
}
