import { Command, Option } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import type { VerifyOptions } from "./verify.run.js";

/** Builds the `verify` command; its run function (verify.run.ts) is loaded when it runs. */
export function verifyCommand(open: OpenSession): Command {
  return new Command("verify")
    .description(
      "re-hash every downloaded file in DIR and report changed or missing ones (offline)",
    )
    .argument("[dir]", "directory svc-dl downloaded into", ".")
    .option("--repair", "download changed and missing files again (needs the network), then verify")
    .addOption(
      new Option(
        "--forget-missing",
        "drop the records of missing files (ones you deleted or renamed)",
      ).conflicts("repair"),
    )
    .addHelpText(
      "after",
      examples(
        "svc-dl verify",
        "svc-dl verify ~/assets",
        "svc-dl verify ~/assets --repair",
        "svc-dl verify ~/assets --forget-missing",
        "svc-dl verify ~/assets --json | jq '.items[] | select(.status != \"ok\")'",
      ),
    )
    .action(async (dir: string | undefined, opts: VerifyOptions, cmd: Command) => {
      const { runVerify } = await import("./verify.run.js");
      await runVerify(open(cmd), dir, opts);
    });
}
