/** The JSON records of packs, assets and orders (spec, Endpoints: the `data` of each list). */
import type { ServiceCore } from "../core.js";
import type { FixtureAsset, FixtureOrder, FixturePack } from "../fixture-types.js";
import type { OwnedPack } from "../state.js";

/** An owned pack as `GET /v1/packs` lists it, with its download routes. */
export function packRecord(core: ServiceCore, owned: OwnedPack): Record<string, unknown> {
  const p = owned.pack;
  const route = `${core.baseUrl}/api/v1/packs/${encodeURIComponent(p.slug)}/download`;
  const { editions, ...head } = catalogPack(p);
  return {
    ...head,
    purchased_at: owned.purchasedAt,
    order_id: owned.order?.id ?? "ord_lifetime",
    editions,
    downloads: { bundle: route, authoring: `${route}?edition=authoring` },
  };
}

/** A pack as the public catalog shows it. */
export function catalogPack(p: FixturePack): Record<string, unknown> {
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    asset_count: p.asset_count,
    categories: p.categories,
    editions: p.authoring === true ? ["standard", "authoring"] : ["standard"],
  };
}

/** An asset; `entitled` is left out where the caller is unknown (the public catalog). */
export function assetRecord(
  core: ServiceCore,
  a: FixtureAsset,
  entitled: boolean | null,
): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    slug: a.slug,
    name: a.name,
    pack_slug: a.pack,
    tier: a.premium ? "premium" : "free",
    preview_url: `${core.baseUrl}/previews/${encodeURIComponent(a.slug)}.glb`,
    download_url: `${core.baseUrl}/api/v1/assets/${encodeURIComponent(a.slug)}/download`,
  };
  if (entitled !== null) rec.entitled = entitled;
  return rec;
}

/** An order as `GET /v1/orders` lists it. */
export function orderRecord(o: FixtureOrder): Record<string, unknown> {
  return {
    id: o.id,
    status: o.paid ? "paid" : "not_paid",
    paid: o.paid,
    amount: o.amount,
    currency: o.currency ?? "usd",
    created_at: o.created_at,
    product_slugs: o.packs,
    lifetime: o.lifetime === true,
  };
}
