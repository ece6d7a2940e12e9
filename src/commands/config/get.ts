import { Command } from "commander";
import { SETTABLE_KEYS_TEXT } from "../../config/settable-keys.js";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `config get`. */
export function configGetCommand(open: OpenSession): Command {
  return new Command("get")
    .description("print a setting from the config file")
    .argument("<key>", `setting name: ${SETTABLE_KEYS_TEXT}`)
    .addHelpText("after", examples("svc-dl config get base-url"))
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const { runConfigGet } = await import("./get.run.js");
      await runConfigGet(open(cmd), key);
    });
}
