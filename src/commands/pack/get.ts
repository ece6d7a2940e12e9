import { Command } from "commander";
import { addDownloadOptions, addRunOptions, examples, type OpenSession } from "../command-kit.js";
import type { PackGetOptions } from "./get.run.js";

/** Builds `pack get`; its run function (get.run.ts) is loaded when it runs. */
export function packGetCommand(open: OpenSession): Command {
  return addRunOptions(
    addDownloadOptions(
      new Command("get")
        .description("download pack ZIPs you own (resumable, verified), one after another")
        .argument("<slug...>", "the packs' slugs (see `svc-dl packs list`)"),
      { edition: "which edition: standard (default) or authoring" },
    ).option(
      "--extract",
      "unpack each verified ZIP into DIR/<file name without .zip>/ (the ZIP is kept)",
    ),
  )
    .addHelpText(
      "after",
      `
With several slugs the packs are fetched one after another into one directory (-o DIR/,
default .); a failed pack is reported and the others go on (exit 1 at the end); a refused key
stops at once. --report, --metrics and --on-item (see \`svc-dl help install\`) make even one
slug such a run: -o then names a directory and --json prints {items, summary, complete}.
${examples(
  "svc-dl pack get forest-pack",
  "svc-dl pack get forest-pack desert-rocks -o ./assets/",
  "svc-dl pack get forest-pack --edition authoring -o ./assets/",
  "svc-dl pack get forest-pack --extract -o vendor/",
  "svc-dl pack get forest-pack -o forest.zip --force",
  "svc-dl pack get forest-pack -o - > forest.zip",
  "svc-dl pack get forest-pack --json | jq -r .sha256",
  "svc-dl pack get forest-pack desert-rocks -o ./assets/ --report get.json",
)}`,
    )
    .action(async (slugs: string[], opts: PackGetOptions, cmd: Command) => {
      const { runPackGet } = await import("./get.run.js");
      await runPackGet(open(cmd), slugs, opts);
    });
}
