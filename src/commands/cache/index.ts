import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { cacheCleanCommand } from "./clean.js";
import { cacheDirCommand } from "./dir.js";

/** The `cache` noun with its `dir` and `clean` verbs (cli-contract "install": the cache). */
export function cacheCommand(open: OpenSession): Command {
  return new Command("cache")
    .description("find or empty the download cache that `svc-dl install` fills")
    .addHelpText("after", examples("svc-dl cache dir", "svc-dl cache clean"))
    .addCommand(cacheDirCommand(open))
    .addCommand(cacheCleanCommand(open));
}
