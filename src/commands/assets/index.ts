import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { assetsListCommand } from "./list.js";

/** The `assets` noun with its `list` verb (cli-contract "Commands"). */
export function assetsCommand(open: OpenSession): Command {
  return new Command("assets")
    .description("list assets")
    .addCommand(assetsListCommand(open))
    .addHelpText("after", examples("svc-dl assets list"));
}
