import { Command } from "commander";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/** `svc-dl config path`: prints the config file's absolute path (it may not exist yet). */
export async function runConfigPath(session: Session): Promise<void> {
  const path = (await session.config()).path;
  if (session.globals.json) session.printJson({ path });
  else session.print(path);
}

/** Builds `config path`. */
export function configPathCommand(open: OpenSession): Command {
  return new Command("path")
    .description("print the config file's path (SVC_DL_CONFIG_DIR or the OS default)")
    .addHelpText("after", examples("svc-dl config path", 'cat "$(svc-dl config path)"'))
    .action(async (_opts: unknown, cmd: Command) => {
      await runConfigPath(open(cmd));
    });
}
