import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds the `assets list` command. */
export function assetsListCommand(open: OpenSession): Command {
  return new Command("list")
    .description("list the assets the service offers you (all pages), with their URLs")
    .addHelpText(
      "after",
      examples(
        "svc-dl assets list",
        "svc-dl assets list --json | jq -r '.[].slug'",
        "svc-dl asset get $(svc-dl assets list --json | jq -r '.[0].slug')",
      ),
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { runAssetsList } = await import("./list.run.js");
      await runAssetsList(open(cmd));
    });
}
