import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { packsListCommand } from "./list.js";
import { packsSyncCommand } from "./sync.js";

/** The `packs` noun with its `list` and `sync` verbs (cli-contract "packs list", "packs sync"). */
export function packsCommand(open: OpenSession): Command {
  return new Command("packs")
    .description("list and sync the packs you own")
    .addHelpText("after", examples("svc-dl packs list", "svc-dl packs sync ~/assets --edition all"))
    .addCommand(packsListCommand(open))
    .addCommand(packsSyncCommand(open));
}
