import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `config list`. */
export function configListCommand(open: OpenSession): Command {
  return new Command("list")
    .description("show the settings and which service addresses have a stored key")
    .addHelpText("after", examples("svc-dl config list", "svc-dl config list --json"))
    .action(async (_opts: unknown, cmd: Command) => {
      const { runConfigList } = await import("./list.run.js");
      await runConfigList(open(cmd));
    });
}
