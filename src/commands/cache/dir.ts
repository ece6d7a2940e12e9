import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `cache dir`; its run function (dir.run.ts) is loaded when it runs. */
export function cacheDirCommand(open: OpenSession): Command {
  return new Command("dir")
    .description("print the cache's path (SVC_DL_CACHE_DIR, else the OS cache directory)")
    .addHelpText("after", examples("svc-dl cache dir", 'du -sh "$(svc-dl cache dir)"'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { runCacheDir } = await import("./dir.run.js");
      await runCacheDir(open(cmd));
    });
}
