import { Command } from "commander";
import { SETTABLE_KEYS } from "../../config/settable-keys.js";
import { examples, type OpenSession } from "../command-kit.js";
import { configGetCommand } from "./get.js";
import { configListCommand } from "./list.js";
import { configPathCommand } from "./path.js";
import { configSetCommand } from "./set.js";
import { configUnsetCommand } from "./unset.js";

/** The `config` noun: get, set, unset, list, path (cli-contract "config"). */
export function configCommand(open: OpenSession): Command {
  return new Command("config")
    .description(`read and change settings (${SETTABLE_KEYS.join(", ")}) in the config file`)
    .addHelpText(
      "after",
      examples(
        "svc-dl config set base-url https://assets.example.com",
        "svc-dl config get base-url",
        "svc-dl config list",
        "svc-dl config path",
      ),
    )
    .addCommand(configGetCommand(open))
    .addCommand(configSetCommand(open))
    .addCommand(configUnsetCommand(open))
    .addCommand(configListCommand(open))
    .addCommand(configPathCommand(open));
}
