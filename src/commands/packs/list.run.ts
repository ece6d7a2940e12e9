import { listPacks } from "../../api/list-packs.js";
import type { PacksListDocument } from "../../documents/commands.js";
import { renderTable } from "../../io/table.js";
import type { Session } from "../../session.js";

/** Options of `packs list`. */
export interface PacksListOptions {
  /** Stop after this many packs. */
  limit?: number;
}

/**
 * `svc-dl packs list [--limit N]` (cli-contract): every owned pack, following every page.
 * Human: a table (slug, name, assets, purchased). `--json`: the Pack objects as received.
 */
export async function runPacksList(session: Session, opts: PacksListOptions): Promise<void> {
  const client = await session.http();
  const packs = await listPacks(client, opts.limit !== undefined ? { max: opts.limit } : {});
  if (session.globals.json) {
    session.printJson(packs satisfies PacksListDocument);
    return;
  }
  if (packs.length === 0) {
    session.reporter.info("No packs owned yet.");
    return;
  }
  session.print(
    renderTable(
      ["SLUG", "NAME", "ASSETS", "PURCHASED"],
      packs.map((p) => [p.slug, p.name, String(p.asset_count), p.purchased_at.slice(0, 10)]),
    ),
  );
}
