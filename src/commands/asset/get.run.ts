import { assetSource } from "../../api/download-source.js";
import { validateSlug } from "../../outdir/names.js";
import type { Session } from "../../session.js";
import type { RunOutputFlags } from "../command-kit.js";
import { runGetMany } from "../shared/get-many.js";
import { runGet } from "../shared/get-one.js";
import { runSinks } from "../shared/record-run.js";

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
 * (src/commands/shared/get-many.ts). Throws UsageError (exit 2) for a bad slug or `-o`, and whatever
 * the engine throws.
 */
export async function runAssetGet(
  session: Session,
  slugs: string | string[],
  opts: AssetGetOptions,
): Promise<void> {
  const list = typeof slugs === "string" ? [slugs] : slugs;
  for (const slug of list) validateSlug(slug, "asset slug");
  const services = await session.services();
  const client = services.http;
  const items = list.map((slug) => ({
    item: { kind: "asset" as const, slug, edition: null },
    source: async () => {
      return assetSource(client, slug);
    },
  }));
  const sinks = runSinks(opts);
  if (items.length > 1 || Object.values(sinks).some((v) => v !== undefined)) {
    const force = opts.force === true;
    await runGetMany(session, services, {
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
  await runGet(session, services, { ...only, output: opts.output, force: opts.force === true });
}
