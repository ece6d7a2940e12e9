import { Command } from "commander";
import type { Session } from "../../session.js";
import { addDownloadOptions, examples, type OpenSession } from "../command-kit.js";

/** Options of `asset get`. */
export interface AssetGetOptions {
  /** `-o PATH`. */
  output?: string;
  force?: boolean;
}

/**
 * `svc-dl asset get <slug> [-o PATH] [--force]` (cli-contract): `GET /v1/assets/{slug}/download`,
 * one GLB file, through the download engine (resume, format check `glTF`, state file).
 * Throws UsageError (exit 2) for a bad slug, and whatever the engine throws.
 */
export async function runAssetGet(
  session: Session,
  slug: string,
  opts: AssetGetOptions,
): Promise<void> {
  const { validateSlug } = await import("../../download/names.js");
  validateSlug(slug, "asset slug");
  const client = await session.http();
  const url = client.apiUrl(`assets/${encodeURIComponent(slug)}/download`);
  const { runGet } = await import("../../download/run-get.js");
  await runGet(session, client, {
    item: { kind: "asset", slug, edition: null },
    source: { url },
    output: opts.output,
    force: opts.force === true,
  });
}

/** Builds the `asset` noun with its `get` verb. */
export function assetCommand(open: OpenSession): Command {
  const get = addDownloadOptions(
    new Command("get")
      .description("download one asset file (GLB)")
      .argument("<slug>", "the asset's slug"),
  )
    .addHelpText(
      "after",
      examples(
        "svc-dl asset get oak-tree",
        "svc-dl asset get oak-tree -o ./models/",
        "svc-dl asset get oak-tree -o - > oak.glb",
      ),
    )
    .action(async (slug: string, opts: AssetGetOptions, cmd: Command) => {
      await runAssetGet(open(cmd), slug, opts);
    });
  return new Command("asset")
    .description("download one asset")
    .addCommand(get)
    .addHelpText("after", examples("svc-dl asset get oak-tree -o ./models/"));
}
