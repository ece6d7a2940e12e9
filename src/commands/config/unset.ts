import { Command } from "commander";
import { SETTABLE_KEYS_TEXT } from "../../config/settable-keys.js";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `config unset`. */
export function configUnsetCommand(open: OpenSession): Command {
  return new Command("unset")
    .description("remove a setting from the config file")
    .argument("<key>", `setting name: ${SETTABLE_KEYS_TEXT}`)
    .addHelpText("after", examples("svc-dl config unset base-url"))
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const { runConfigUnset } = await import("./unset.run.js");
      await runConfigUnset(open(cmd), key);
    });
}
