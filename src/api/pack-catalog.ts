import type { HttpClient } from "../http/client.js";
import { listPacksChecked } from "./list-packs.js";
import type { Listing } from "./paginate.js";
import type { Pack } from "./schemas.js";

/**
 * The packs the account owns, listed once per run (`GET /v1/packs`, every page) and shared by
 * `pack get`, `install` and `packs sync`: the first call sends the requests, later calls (and
 * concurrent ones) get the same answer. A failed listing is remembered too (the run stops on it).
 */
export interface PackCatalog {
  /** Every owned pack. Throws what `listPacks` throws (API, network, pagination errors). */
  packs(): Promise<readonly Pack[]>;
  /**
   * The same listing with its check of completeness (src/api/paginate.ts `Listing`: items seen
   * against `total`, a slug listed twice), for a step that acts on what is not listed
   * (`--prune`). Throws as {@link packs}.
   */
  listing(): Promise<Readonly<Listing<Pack>>>;
  /** The owned pack with this slug, or undefined. Throws as {@link packs}. */
  find(slug: string): Promise<Pack | undefined>;
}

/** A {@link PackCatalog} that lists through `client` on first use. */
export function packCatalog(client: HttpClient): PackCatalog {
  let listed: Promise<Listing<Pack>> | undefined;
  const listing = (): Promise<Listing<Pack>> => {
    listed ??= listPacksChecked(client);
    return listed;
  };
  const packs = async (): Promise<Pack[]> => (await listing()).items;
  return {
    packs,
    listing,
    find: async (slug) => (await packs()).find((p) => p.slug === slug),
  };
}
