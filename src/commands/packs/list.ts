import { Command } from "commander";
import { examples, type OpenSession, parsePositiveNumber } from "../command-kit.js";
import type { PacksListOptions } from "./list.run.js";

/** Builds the `packs list` command. */
export function packsListCommand(open: OpenSession): Command {
  return new Command("list")
    .description("list every pack you own (all pages)")
    .option("--limit <n>", "stop after N packs", parsePositiveNumber)
    .addHelpText(
      "after",
      examples(
        "svc-dl packs list",
        "svc-dl packs list --limit 10",
        "svc-dl packs list --json | jq -r '.[].slug'",
      ),
    )
    .action(async (opts: PacksListOptions, cmd: Command) => {
      const { runPacksList } = await import("./list.run.js");
      await runPacksList(open(cmd), opts);
    });
}
