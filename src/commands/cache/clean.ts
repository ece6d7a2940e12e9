import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `cache clean`; its run function (clean.run.ts) is loaded when it runs. */
export function cacheCleanCommand(open: OpenSession): Command {
  return new Command("clean")
    .description("remove every cached file (only what svc-dl wrote there)")
    .addHelpText("after", examples("svc-dl cache clean"))
    .action(async (_opts: unknown, cmd: Command) => {
      const { runCacheClean } = await import("./clean.run.js");
      await runCacheClean(open(cmd));
    });
}
