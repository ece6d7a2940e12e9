import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { legacyGetCommand } from "./get.js";

/** The `legacy` noun with its `get` verb (cli-contract "Commands"). */
export function legacyCommand(open: OpenSession): Command {
  return new Command("legacy")
    .description("downloads by license key (the older /api/download endpoint)")
    .addCommand(legacyGetCommand(open))
    .addHelpText("after", examples("svc-dl legacy get --pack forest-pack --license-key-stdin"));
}
