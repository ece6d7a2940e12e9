import type { HttpClient } from "../http/client.js";
import { type Listing, paginate, paginateListing } from "./paginate.js";
import { type Pack, PackSchema } from "./schemas.js";

/**
 * `GET /v1/packs` (spec "Endpoints"), every page: the packs the account owns, as received.
 * `max` stops after that many packs. Budget: read. Throws as {@link paginate}.
 */
export async function listPacks(client: HttpClient, opts: { max?: number } = {}): Promise<Pack[]> {
  return paginate(client, {
    path: "packs",
    item: PackSchema,
    ...(opts.max !== undefined ? { max: opts.max } : {}),
  });
}

/**
 * {@link listPacks} of every page with the listing's own check (src/api/paginate.ts
 * {@link Listing}): `inconsistency` also names a slug listed twice. Throws as `paginate`.
 */
export async function listPacksChecked(client: HttpClient): Promise<Listing<Pack>> {
  const listing = await paginateListing(client, { path: "packs", item: PackSchema });
  if (listing.inconsistency !== undefined) return listing;
  const seen = new Set<string>();
  for (const pack of listing.items) {
    if (seen.has(pack.slug)) {
      return { ...listing, inconsistency: `it lists ${JSON.stringify(pack.slug)} twice` };
    }
    seen.add(pack.slug);
  }
  return listing;
}
