import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { packGetCommand } from "./get.js";

/** The `pack` noun with its `get` verb (cli-contract "Commands"). */
export function packCommand(open: OpenSession): Command {
  return new Command("pack")
    .description("download packs")
    .addCommand(packGetCommand(open))
    .addHelpText("after", examples("svc-dl pack get forest-pack -o ./assets/"));
}
