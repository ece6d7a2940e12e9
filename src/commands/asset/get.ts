import { Command } from "commander";
import { addDownloadOptions, addRunOptions, examples, type OpenSession } from "../command-kit.js";
import type { AssetGetOptions } from "./get.run.js";

/** Builds `asset get`; its run function (get.run.ts) is loaded when it runs. */
export function assetGetCommand(open: OpenSession): Command {
  return addRunOptions(
    addDownloadOptions(
      new Command("get")
        .description("download asset files (GLB), one after another")
        .argument("<slug...>", "the assets' slugs (see `svc-dl assets list`)"),
    ),
  )
    .addHelpText(
      "after",
      `
With several slugs the assets are fetched one after another into one directory (-o DIR/,
default .); a failed asset is reported and the others go on (exit 1 at the end).
--report, --metrics and --on-item (see \`svc-dl help install\`) make even one slug such a run.
${examples(
  "svc-dl asset get oak-tree",
  "svc-dl asset get oak-tree village-well -o ./models/",
  "svc-dl asset get oak-tree -o - > oak.glb",
  "svc-dl asset get oak-tree village-well -o ./models/ --on-item 'echo \"$SVC_DL_ITEM_PATH\"'",
)}`,
    )
    .action(async (slugs: string[], opts: AssetGetOptions, cmd: Command) => {
      const { runAssetGet } = await import("./get.run.js");
      await runAssetGet(open(cmd), slugs, opts);
    });
}
