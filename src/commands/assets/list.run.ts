import { listAssets } from "../../api/list-assets.js";
import type { AssetRecord } from "../../api/schemas.js";
import type { AssetsListDocument } from "../../documents/commands.js";
import { renderTable } from "../../io/table.js";
import type { Session } from "../../session.js";

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
  const client = await session.http();
  const assets = await listAssets(client);
  if (session.globals.json) {
    session.printJson(assets satisfies AssetsListDocument);
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
