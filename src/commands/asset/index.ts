import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { assetGetCommand } from "./get.js";

/** The `asset` noun with its `get` verb (cli-contract "Commands"). */
export function assetCommand(open: OpenSession): Command {
  return new Command("asset")
    .description("download assets")
    .addCommand(assetGetCommand(open))
    .addHelpText("after", examples("svc-dl asset get oak-tree -o ./models/"));
}
