/** The public catalog `/v1/catalog/*` (spec, Endpoints): no key, the `public` budget per IP. */
import { applyLimiter } from "../auth.js";
import type { ServiceCore } from "../core.js";
import { type RequestContext, sendError } from "../http-util.js";
import { assetRecord, catalogPack } from "./records.js";
import { decode, list, ok, published, publishedAsset, publishedPack } from "./respond.js";

const CATALOG_ROUTES = [
  "/api/v1/catalog/packs",
  "/api/v1/catalog/packs/{slug}",
  "/api/v1/catalog/assets",
  "/api/v1/catalog/assets/{slug}",
];

/** `/v1/catalog/*`: public (no key), `public` budget per IP, then 403 `api_disabled` while the API is off. */
export function catalog(core: ServiceCore, ctx: RequestContext, rest: string) {
  if (!applyLimiter(core, ctx, "public", ctx.ip)) return;
  if (core.state.apiDisabled) {
    sendError(ctx, 403, "api_disabled", "The API is switched off.");
    return;
  }
  const sub = rest.slice("/catalog".length);
  if (sub === "") return ok(core, ctx, { data: { routes: CATALOG_ROUTES } });
  if (sub === "/packs")
    return list(core, ctx, core.state.fixture.packs.filter(published).map(catalogPack));
  if (sub === "/assets") {
    return list(
      core,
      ctx,
      core.state.fixture.assets.filter(published).map((a) => assetRecord(core, a, null)),
    );
  }
  const one = /^\/(packs|assets)\/([^/]+)$/.exec(sub);
  if (one === null) {
    sendError(ctx, 404, "not_found", `No catalog route ${ctx.url.pathname}.`);
    return;
  }
  const slug = decode(one[2]);
  if (one[1] === "packs") {
    const pack = publishedPack(core, ctx, slug);
    if (pack !== undefined) ok(core, ctx, { data: catalogPack(pack) });
    return;
  }
  const asset = publishedAsset(core, ctx, slug);
  if (asset !== undefined) ok(core, ctx, { data: assetRecord(core, asset, null) });
}
