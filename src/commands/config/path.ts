import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `config path`. */
export function configPathCommand(open: OpenSession): Command {
  return new Command("path")
    .description("print the config file's path (SVC_DL_CONFIG_DIR or the OS default)")
    .addHelpText("after", examples("svc-dl config path", 'cat "$(svc-dl config path)"'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { runConfigPath } = await import("./path.run.js");
      await runConfigPath(open(cmd));
    });
}
