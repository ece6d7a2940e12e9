/** Metadata reads of the API key's account: `/v1/me`, `/v1/packs`, `/v1/assets`, `/v1/orders`. */
import { authenticate } from "../auth.js";
import type { ServiceCore } from "../core.js";
import type { RequestContext } from "../http-util.js";
import { keyPreview } from "../keys.js";
import { assetRecord, orderRecord, packRecord } from "./records.js";
import { list, ok, published } from "./respond.js";

/** `GET /v1/me`: the account, its entitlements and the key in use (any scope). */
export function me(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "none");
  if (who === null) return;
  const { account, key } = who;
  const owned = core.state.ownedPacks(account);
  ok(core, ctx, {
    data: {
      account: { id: account.id, email: account.email, name: account.name },
      entitlements: {
        lifetime: core.state.hasLifetime(account),
        owned_product_slugs: owned.map((o) => o.pack.slug),
        pack_count: owned.length,
        asset_count: core.state.coveredAssetCount(account),
      },
      key: {
        id: key.id,
        name: key.name,
        preview: keyPreview(key.key),
        scopes: key.scopes,
        created_at: key.created_at,
        last_used_at: key.last_used_at ?? key.created_at,
        expires_at: key.expires_at ?? null,
      },
    },
  });
}

/** `GET /v1/packs`: the packs the account owns. */
export function packsList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  list(
    core,
    ctx,
    core.state.ownedPacks(who.account).map((o) => packRecord(core, o)),
  );
}

/** `GET /v1/assets`: every published asset, with whether the account may download it. */
export function assetsList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  const items = core.state.fixture.assets
    .filter(published)
    .map((a) => assetRecord(core, a, core.state.assetAccess(who.account, a) === "ok"));
  list(core, ctx, items);
}

/** `GET /v1/orders`: the account's orders, oldest first. */
export function ordersList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  const orders = [...core.state.ordersOf(who.account.id)].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  list(core, ctx, orders.map(orderRecord));
}
