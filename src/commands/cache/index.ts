import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { cacheCleanCommand } from "./clean.js";
import { cacheDirCommand } from "./dir.js";
import { cacheLsCommand } from "./ls.js";
import { cachePruneCommand } from "./prune.js";

/**
 * The `cache` noun with its `dir`, `ls`, `prune` and `clean` verbs (cli-contract "Manifest, lock
 * and cache").
 */
export function cacheCommand(open: OpenSession): Command {
  return new Command("cache")
    .description("find, list, prune or empty the download cache that `svc-dl install` fills")
    .addHelpText(
      "after",
      examples(
        "svc-dl cache dir",
        "svc-dl cache ls --lock svc-dl.lock",
        "svc-dl cache prune --keep-lock svc-dl.lock",
        "svc-dl cache clean",
      ),
    )
    .addCommand(cacheDirCommand(open))
    .addCommand(cacheLsCommand(open))
    .addCommand(cachePruneCommand(open))
    .addCommand(cacheCleanCommand(open));
}
