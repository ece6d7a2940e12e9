import { Command, InvalidArgumentError } from "commander";
import { durationSeconds } from "../../pacing/units.js";
import { examples, type OpenSession } from "../command-kit.js";
import { collect } from "./ls.js";
import type { CachePruneOptions } from "./prune.run.js";

/** Seconds of a `--max-age` value: `30d`, `12h`, `90m`, `3600s` or plain seconds, above 0. */
export function parseMaxAge(value: string): number {
  const days = /^\s*(\d+(?:\.\d+)?)\s*d\s*$/.exec(value);
  const seconds = days ? Number(days[1]) * 86_400 : durationSeconds(value);
  if (seconds === undefined || !(seconds > 0)) {
    throw new InvalidArgumentError("expected a duration such as 30d, 12h, 90m or 3600s");
  }
  return seconds;
}

/** Builds `cache prune`; its run function (prune.run.ts) is loaded when it runs. */
export function cachePruneCommand(open: OpenSession): Command {
  return new Command("prune")
    .description("remove the cached files no given svc-dl.lock names (only what svc-dl wrote)")
    .requiredOption(
      "--keep-lock <file>",
      "keep every file this svc-dl.lock names (repeatable; at least one)",
      collect,
    )
    .option(
      "--max-age <duration>",
      "remove only files also not used for DURATION (30d, 12h, 90m)",
      parseMaxAge,
    )
    .option("--dry-run", "say what would be removed, remove nothing")
    .addHelpText(
      "after",
      `
Every lock is read first: a missing or invalid one stops the prune before anything is removed.
Files of other projects sharing the cache are removed unless you name their locks too, or keep
recent ones with --max-age. In CI, prune before saving the cache so it holds only what the lock
names (the GitHub action does).
${examples(
  "svc-dl cache prune --keep-lock svc-dl.lock",
  "svc-dl cache prune --keep-lock svc-dl.lock --keep-lock ../game/svc-dl.lock --dry-run",
  "svc-dl cache prune --keep-lock svc-dl.lock --max-age 30d --json",
)}`,
    )
    .action(async (opts: CachePruneOptions, cmd: Command) => {
      const { runCachePrune } = await import("./prune.run.js");
      await runCachePrune(open(cmd), opts);
    });
}
