import { Command } from "commander";
import type { AssetRecord } from "../../api/list-assets.js";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/**
 * Whether the record calls the asset free or premium: a `tier` of `free`/`premium`, a boolean
 * `premium` or `free`; an empty string when the record does not say (the spec shows no such
 * field).
 */
export function tierOf(record: AssetRecord): string {
  const r = record as Record<string, unknown>;
  if (r.tier === "free" || r.tier === "premium") return r.tier;
  if (typeof r.premium === "boolean") return r.premium ? "premium" : "free";
  if (typeof r.free === "boolean") return r.free ? "free" : "premium";
  return "";
}

/**
 * `svc-dl assets list` (cli-contract): every page of `GET /v1/assets`. Human: a table (slug,
 * free/premium when the record says, preview URL, download URL) on stdout. `--json`: the array
 * of records as received. Throws what the listing throws (src/api/list-assets.ts).
 */
export async function runAssetsList(session: Session): Promise<void> {
  const [{ listAssets }, { renderTable }] = await Promise.all([
    import("../../api/list-assets.js"),
    import("../../io/table.js"),
  ]);
  const client = await session.http();
  const assets = await listAssets(client);
  if (session.globals.json) {
    session.printJson(assets);
    return;
  }
  if (assets.length === 0) {
    session.reporter.info("No assets listed.");
    return;
  }
  session.print(
    renderTable(
      ["SLUG", "TIER", "PREVIEW URL", "DOWNLOAD URL"],
      assets.map((a) => [a.slug, tierOf(a), a.preview_url ?? "", a.download_url ?? ""]),
    ),
  );
}

/** Builds the `assets list` command. */
export function assetsListCommand(open: OpenSession): Command {
  return new Command("list")
    .description("list the assets the service offers you (all pages), with their URLs")
    .addHelpText(
      "after",
      examples(
        "svc-dl assets list",
        "svc-dl assets list --json | jq -r '.[].slug'",
        "svc-dl asset get $(svc-dl assets list --json | jq -r '.[0].slug')",
      ),
    )
    .action(async (_opts: unknown, cmd: Command) => {
      await runAssetsList(open(cmd));
    });
}

/** Builds the `assets` noun with its `list` verb. */
export function assetsCommand(open: OpenSession): Command {
  return new Command("assets")
    .description("list assets")
    .addCommand(assetsListCommand(open))
    .addHelpText("after", examples("svc-dl assets list"));
}
