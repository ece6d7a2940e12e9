import { Command } from "commander";
import type { Session } from "../../session.js";
import {
  addDownloadOptions,
  addRunOptions,
  examples,
  type OpenSession,
  type RunOutputFlags,
} from "../command-kit.js";

/** Options of `asset get`. */
export interface AssetGetOptions extends RunOutputFlags {
  /** `-o PATH`. */
  output?: string;
  force?: boolean;
}

/**
 * `svc-dl asset get <slug>... [-o PATH] [--force]` (cli-contract): `GET /v1/assets/{slug}/download`
 * for each slug, one GLB file each, through the download engine (resume, format check `glTF`,
 * state file). Several slugs are fetched one after another into one directory
 * (src/commands/get-many.ts). Throws UsageError (exit 2) for a bad slug or `-o`, and whatever
 * the engine throws.
 */
export async function runAssetGet(
  session: Session,
  slugs: string | string[],
  opts: AssetGetOptions,
): Promise<void> {
  const list = typeof slugs === "string" ? [slugs] : slugs;
  const { validateSlug } = await import("../../outdir/names.js");
  for (const slug of list) validateSlug(slug, "asset slug");
  const client = await session.http();
  const items = list.map((slug) => ({
    item: { kind: "asset" as const, slug, edition: null },
    source: async () => {
      const { assetSource } = await import("../../api/download-source.js");
      return assetSource(client, slug);
    },
  }));
  const sinks = { report: opts.report, metrics: opts.metrics, onItem: opts.onItem };
  if (items.length > 1 || Object.values(sinks).some((v) => v !== undefined)) {
    const { runGetMany } = await import("../get-many.js");
    const force = opts.force === true;
    await runGetMany(session, client, {
      command: "asset get",
      sinks,
      items,
      output: opts.output,
      force,
    });
    return;
  }
  const [only] = items;
  if (only === undefined) return;
  const { runGet } = await import("../../download/run-get.js");
  await runGet(session, client, { ...only, output: opts.output, force: opts.force === true });
}

/** Builds the `asset` noun with its `get` verb. */
export function assetCommand(open: OpenSession): Command {
  const get = addRunOptions(
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
      await runAssetGet(open(cmd), slugs, opts);
    });
  return new Command("asset")
    .description("download assets")
    .addCommand(get)
    .addHelpText("after", examples("svc-dl asset get oak-tree -o ./models/"));
}
