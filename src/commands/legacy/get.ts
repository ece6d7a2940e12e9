import { Command, Option } from "commander";
import { addDownloadOptions, examples, type OpenSession } from "../command-kit.js";
import type { LegacyGetOptions } from "./get.run.js";

/** Builds `legacy get`; its run function (get.run.ts) is loaded when it runs. */
export function legacyGetCommand(open: OpenSession): Command {
  return addDownloadOptions(
    new Command("get")
      .description("download a pack or asset with a purchase license key (no API key)")
      .addOption(new Option("--pack <slug>", "the pack to download").conflicts("asset"))
      .addOption(new Option("--asset <slug>", "the asset to download").conflicts("pack")),
    { edition: "pack edition: standard (default) or authoring" },
  )
    .option(
      "--license-key-stdin",
      "read the license key from stdin (else SVC_LICENSE_KEY or a prompt)",
    )
    .addHelpText(
      "after",
      examples(
        "SVC_LICENSE_KEY=SVC_… svc-dl legacy get --pack forest-pack",
        'printf %s "$LICENSE" | svc-dl legacy get --pack forest-pack --license-key-stdin -o ./assets/',
        "svc-dl legacy get --asset oak-tree -o oak.glb",
      ),
    )
    .action(async (opts: LegacyGetOptions, cmd: Command) => {
      const { runLegacyGet } = await import("./get.run.js");
      await runLegacyGet(open(cmd), opts);
    });
}
