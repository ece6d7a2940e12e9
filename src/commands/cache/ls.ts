import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import type { CacheLsOptions } from "./ls.run.js";

/** Collects a repeatable flag's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Builds `cache ls`; its run function (ls.run.ts) is loaded when it runs. */
export function cacheLsCommand(open: OpenSession): Command {
  return new Command("ls")
    .description("list the cached files: SHA-256, size, last use, and which locks name them")
    .option(
      "--lock <file>",
      "show which of these svc-dl.lock files name each entry (repeatable)",
      collect,
    )
    .addHelpText(
      "after",
      `
LAST USED is when install last copied the file out of the cache (or stored it).
${examples(
  "svc-dl cache ls",
  "svc-dl cache ls --lock svc-dl.lock --lock ../game/svc-dl.lock",
  "svc-dl cache ls --json | jq '.total_bytes'",
)}`,
    )
    .action(async (opts: CacheLsOptions, cmd: Command) => {
      const { runCacheLs } = await import("./ls.run.js");
      await runCacheLs(open(cmd), opts);
    });
}
