import type { HttpClient } from "../http/client.js";
import { listPacks } from "./list-packs.js";
import type { Pack } from "./schemas.js";

/**
 * The packs the account owns, listed once per run (`GET /v1/packs`, every page) and shared by
 * `pack get`, `install` and `packs sync`: the first call sends the requests, later calls (and
 * concurrent ones) get the same answer. A failed listing is remembered too (the run stops on it).
 */
export interface PackCatalog {
  /** Every owned pack. Throws what `listPacks` throws (API, network, pagination errors). */
  packs(): Promise<readonly Pack[]>;
  /** The owned pack with this slug, or undefined. Throws as {@link packs}. */
  find(slug: string): Promise<Pack | undefined>;
}

/** A {@link PackCatalog} that lists through `client` on first use. */
export function packCatalog(client: HttpClient): PackCatalog {
  let listed: Promise<Pack[]> | undefined;
  const packs = (): Promise<Pack[]> => {
    listed ??= listPacks(client);
    return listed;
  };
  return {
    packs,
    find: async (slug) => (await packs()).find((p) => p.slug === slug),
  };
}
