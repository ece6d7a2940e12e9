/**
 * The API origin: `/api/v1/*` (spec, Endpoints), the public catalog, the
 * legacy `POST /api/download`, and public asset previews.
 */
import { applyLimiter, authenticate, failAuth, type Principal } from "./auth.js";
import { rangeChunks } from "./content.js";
import { type ServiceCore, signedFileUrl } from "./core.js";
import { FileStore } from "./files.js";
import { type RequestContext, sendError, sendHtmlError, sendJson } from "./http-util.js";
import { keyPreview } from "./keys.js";
import { paginate } from "./pagination.js";
import type { FileSpec, OwnedPack } from "./state.js";
import type { Edition, FixtureAsset, FixtureOrder, FixturePack } from "./types.js";

/** Handle one request of the API origin. */
export function handleApi(core: ServiceCore, ctx: RequestContext) {
  if (core.faults.take("htmlErrorPage")) {
    sendHtmlError(ctx, core.faults.faults.htmlErrorPage?.status ?? 502);
    return;
  }
  const se = core.faults.faults.serverError;
  if (se !== undefined && (se.origin ?? "api") === "api" && core.faults.take("serverError")) {
    sendError(
      ctx,
      se.status ?? 500,
      "internal_error",
      "Internal server error (injected fault); retry with backoff.",
    );
    return;
  }
  const path =
    ctx.url.pathname.length > 1 ? ctx.url.pathname.replace(/\/+$/, "") : ctx.url.pathname;
  const method = ctx.req.method ?? "GET";

  if (path === "/api/download") {
    if (method !== "POST") return methodNotAllowed(ctx, "POST");
    return legacyDownload(core, ctx);
  }
  const preview = /^\/previews\/([^/]+)\.glb$/.exec(path);
  if (preview !== null) {
    if (method !== "GET" && method !== "HEAD") return methodNotAllowed(ctx, "GET, HEAD");
    return previewFile(core, ctx, decode(preview[1]));
  }
  if (!path.startsWith("/api/v1/")) return notFoundRoute(ctx);
  if (method !== "GET") return methodNotAllowed(ctx, "GET");
  const rest = path.slice("/api/v1".length);

  if (rest === "/catalog" || rest.startsWith("/catalog/")) return catalog(core, ctx, rest);
  if (rest === "/me") return me(core, ctx);
  if (rest === "/packs") return packsList(core, ctx);
  if (rest === "/assets") return assetsList(core, ctx);
  if (rest === "/orders") return ordersList(core, ctx);
  const pd = /^\/packs\/([^/]+)\/download$/.exec(rest);
  if (pd !== null) return packDownload(core, ctx, decode(pd[1]));
  const ad = /^\/assets\/([^/]+)\/download$/.exec(rest);
  if (ad !== null) return assetDownload(core, ctx, decode(ad[1]));
  return notFoundRoute(ctx);
}

function decode(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? "");
  } catch {
    return s ?? "";
  }
}

function notFoundRoute(ctx: RequestContext) {
  sendError(ctx, 404, "not_found", `No route ${ctx.req.method ?? "GET"} ${ctx.url.pathname}.`);
}

function methodNotAllowed(ctx: RequestContext, allow: string) {
  sendError(ctx, 405, "method_not_allowed", `Use ${allow} on this route.`, { Allow: allow });
}

/** 200 with `{ data, pagination? }`, honouring the `malformedJson` fault. */
function ok(core: ServiceCore, ctx: RequestContext, payload: unknown) {
  sendJson(ctx, 200, payload, {}, core.faults.take("malformedJson"));
}

// ---------------------------------------------------------------- records

function packRecord(core: ServiceCore, owned: OwnedPack): Record<string, unknown> {
  const p = owned.pack;
  const route = `${core.baseUrl}/api/v1/packs/${encodeURIComponent(p.slug)}/download`;
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    asset_count: p.asset_count,
    categories: p.categories,
    purchased_at: owned.purchasedAt,
    order_id: owned.order?.id ?? "ord_lifetime",
    editions: p.authoring === true ? ["standard", "authoring"] : ["standard"],
    downloads: { bundle: route, authoring: `${route}?edition=authoring` },
  };
}

function assetRecord(
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

function orderRecord(o: FixtureOrder): Record<string, unknown> {
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

const published = (x: { availability?: string | undefined }) =>
  (x.availability ?? "published") === "published";

// ---------------------------------------------------------------- metadata reads

function me(core: ServiceCore, ctx: RequestContext) {
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

function list(core: ServiceCore, ctx: RequestContext, items: unknown[]) {
  const page = paginate(ctx, items, core.faults.faults.paginationLoop === true);
  if (page === null) return;
  ok(core, ctx, { data: page.data, pagination: page.pagination });
}

function packsList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  list(
    core,
    ctx,
    core.state.ownedPacks(who.account).map((o) => packRecord(core, o)),
  );
}

function assetsList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  const items = core.state.fixture.assets
    .filter(published)
    .map((a) => assetRecord(core, a, core.state.assetAccess(who.account, a) === "ok"));
  list(core, ctx, items);
}

function ordersList(core: ServiceCore, ctx: RequestContext) {
  const who = authenticate(core, ctx, "read", "any");
  if (who === null) return;
  const orders = [...core.state.ordersOf(who.account.id)].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  list(core, ctx, orders.map(orderRecord));
}

// ---------------------------------------------------------------- downloads

function redirectTo(ctx: RequestContext, status: 302 | 303, location: string) {
  ctx.res.writeHead(status, {
    Location: location,
    "Cache-Control": "no-store",
    "Content-Length": "0",
  });
  ctx.res.end();
}

function redirectToFile(core: ServiceCore, ctx: RequestContext, spec: FileSpec, status: 302 | 303) {
  if (core.faults.faults.redirectLoop === true) {
    redirectTo(ctx, status, `${core.baseUrl}${ctx.url.pathname}${ctx.url.search}`);
    return;
  }
  redirectTo(ctx, status, signedFileUrl(core, spec, FileStore.filename(spec)));
}

function parseEdition(ctx: RequestContext, value: string | null): Edition | null {
  if (value === null || value === "" || value === "standard") return "standard";
  if (value === "authoring") return "authoring";
  sendError(
    ctx,
    400,
    "invalid_request",
    `Unknown edition "${value}"; the allowed value is "authoring".`,
  );
  return null;
}

function denyUnpaid(ctx: RequestContext, what: string) {
  sendError(
    ctx,
    403,
    "not_entitled",
    `${what} is owned through an order that is not paid (open refund or dispute); new downloads are unavailable.`,
  );
}

/** Item checks of a pack download: not_found → not_entitled → file_unavailable. */
function packDownload(core: ServiceCore, ctx: RequestContext, slug: string) {
  const who: Principal | null = authenticate(core, ctx, "download", "downloads:read");
  if (who === null) return;
  const edition = parseEdition(ctx, ctx.url.searchParams.get("edition"));
  if (edition === null) return;
  const pack = core.state.pack(slug);
  if (pack === undefined || !published(pack)) {
    sendError(ctx, 404, "not_found", `No published pack "${slug}".`);
    return;
  }
  const access = core.state.packAccess(who.account, slug);
  if (access === "unpaid") return denyUnpaid(ctx, `Pack "${slug}"`);
  if (access === "none") {
    sendError(ctx, 403, "not_entitled", `Pack "${slug}" is not among this account's purchases.`);
    return;
  }
  if (edition === "authoring" && pack.authoring !== true) {
    sendError(ctx, 404, "file_unavailable", `Pack "${slug}" has no authoring edition.`);
    return;
  }
  redirectToFile(core, ctx, core.state.packFile(pack, edition), 302);
}

/** Item checks of an asset download: not_found → not_entitled (premium only) → file_unavailable. */
function assetDownload(core: ServiceCore, ctx: RequestContext, slug: string) {
  const who = authenticate(core, ctx, "download", "downloads:read");
  if (who === null) return;
  const asset = core.state.asset(slug);
  if (asset === undefined || !published(asset)) {
    sendError(ctx, 404, "not_found", `No published asset "${slug}".`);
    return;
  }
  const access = core.state.assetAccess(who.account, asset);
  if (access === "unpaid") return denyUnpaid(ctx, `Asset "${slug}"`);
  if (access === "none") {
    sendError(
      ctx,
      403,
      "not_entitled",
      `Premium asset "${slug}" needs its pack or lifetime access.`,
    );
    return;
  }
  if (asset.file_missing === true) {
    sendError(ctx, 404, "file_unavailable", `The file of asset "${slug}" is unavailable.`);
    return;
  }
  redirectToFile(core, ctx, core.state.assetFile(asset), 302);
}

// ---------------------------------------------------------------- public catalog

function catalogPack(p: FixturePack): Record<string, unknown> {
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    asset_count: p.asset_count,
    categories: p.categories,
    editions: p.authoring === true ? ["standard", "authoring"] : ["standard"],
  };
}

/** `/v1/catalog/*`: public (no key), `public` budget per IP, then 403 `api_disabled` while the API is off. */
function catalog(core: ServiceCore, ctx: RequestContext, rest: string) {
  if (!applyLimiter(core, ctx, "public", ctx.ip)) return;
  if (core.state.apiDisabled) {
    sendError(ctx, 403, "api_disabled", "The API is switched off.");
    return;
  }
  const sub = rest.slice("/catalog".length);
  if (sub === "") {
    ok(core, ctx, {
      data: {
        routes: [
          "/api/v1/catalog/packs",
          "/api/v1/catalog/packs/{slug}",
          "/api/v1/catalog/assets",
          "/api/v1/catalog/assets/{slug}",
        ],
      },
    });
    return;
  }
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
  if (one !== null) {
    const slug = decode(one[2]);
    if (one[1] === "packs") {
      const p = core.state.pack(slug);
      if (p !== undefined && published(p)) return ok(core, ctx, { data: catalogPack(p) });
    } else {
      const a = core.state.asset(slug);
      if (a !== undefined && published(a))
        return ok(core, ctx, { data: assetRecord(core, a, null) });
    }
    sendError(
      ctx,
      404,
      "not_found",
      `No published ${one[1] === "packs" ? "pack" : "asset"} "${slug}".`,
    );
    return;
  }
  sendError(ctx, 404, "not_found", `No catalog route ${ctx.url.pathname}.`);
}

// ---------------------------------------------------------------- previews

/** Public preview GLB (no key, no limiter): a small GLB of the asset. */
function previewFile(core: ServiceCore, ctx: RequestContext, slug: string) {
  const asset = core.state.asset(slug);
  if (asset === undefined || !published(asset)) {
    sendError(ctx, 404, "not_found", `No published asset "${slug}".`);
    return;
  }
  const spec: FileSpec = {
    ...core.state.assetFile(asset),
    size: 4096,
    slug: `${asset.slug}-preview`,
  };
  const layout = core.files.layout(spec);
  const body = Buffer.concat([...rangeChunks(layout, 0, layout.size - 1)]);
  ctx.res.writeHead(200, {
    "Content-Type": "model/gltf-binary",
    "Content-Length": String(body.length),
    "Cache-Control": "public, max-age=3600",
  });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : body);
}

// ---------------------------------------------------------------- legacy

interface LegacyBody {
  licenseKey?: unknown;
  packSlug?: unknown;
  assetSlug?: unknown;
  edition?: unknown;
}

/**
 * Legacy `POST /api/download` (license key in a JSON body). Answers 303 to the
 * signed CDN URL. Denials (not shown by the spec; chosen here): 400
 * `invalid_request` (bad body), 401 `invalid_license_key` (missing, unknown or
 * not an `SVC_` key; counted by the `auth` policy), 403 `blocked`,
 * 403 `not_entitled` (the key does not cover the item), 403 `order_not_paid`,
 * 404 `not_found`, 404 `file_unavailable`, 429 `rate_limited` (`download`
 * budget per license key). Same error object as `/api/v1`.
 */
function legacyDownload(core: ServiceCore, ctx: RequestContext) {
  const ct = ctx.req.headers["content-type"] ?? "";
  let body: LegacyBody;
  try {
    if (!/^application\/json\b/i.test(ct)) throw new Error("content type");
    const parsed: unknown = JSON.parse(ctx.body ?? "");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("shape");
    body = parsed as LegacyBody;
  } catch {
    sendError(
      ctx,
      400,
      "invalid_request",
      "Send a JSON object body with Content-Type: application/json.",
    );
    return;
  }
  const { licenseKey, packSlug, assetSlug, edition } = body;
  if (typeof licenseKey !== "string" || licenseKey === "") {
    failAuth(core, ctx, "invalid_license_key", "licenseKey is required.");
    return;
  }
  const lic = licenseKey.startsWith("SVC_") ? core.state.licenseKey(licenseKey) : undefined;
  if (lic === undefined || lic.key !== licenseKey) {
    failAuth(core, ctx, "invalid_license_key", "The license key is malformed or unknown.");
    return;
  }
  const order = core.state.order(lic.order);
  const account = order === undefined ? undefined : core.state.account(order.account);
  if (order === undefined || account === undefined) {
    failAuth(core, ctx, "invalid_license_key", "The license key is malformed or unknown.");
    return;
  }
  if (account.blocked === true) {
    sendError(ctx, 403, "blocked", "Access denied");
    return;
  }
  const hasPack = typeof packSlug === "string" && packSlug !== "";
  const hasAsset = typeof assetSlug === "string" && assetSlug !== "";
  if (hasPack === hasAsset) {
    sendError(ctx, 400, "invalid_request", "Send exactly one of packSlug and assetSlug.");
    return;
  }
  if (edition !== undefined && edition !== null && (edition !== "authoring" || !hasPack)) {
    sendError(
      ctx,
      400,
      "invalid_request",
      'edition may only be "authoring", and only with packSlug.',
    );
    return;
  }
  if (!applyLimiter(core, ctx, "download", lic.id)) return;
  /** Sends the denial when the license key does not cover `pack` or its order is not paid. */
  const denied = (pack: string | null, what: string): boolean => {
    if (order.lifetime !== true && (pack === null || !order.packs.includes(pack))) {
      sendError(ctx, 403, "not_entitled", `This license key does not cover ${what}.`);
      return true;
    }
    if (!order.paid) {
      sendError(
        ctx,
        403,
        "order_not_paid",
        `Order ${order.id} is not paid (open refund or dispute).`,
      );
      return true;
    }
    return false;
  };

  if (hasPack) {
    const slug = String(packSlug);
    const pack = core.state.pack(slug);
    if (pack === undefined || !published(pack)) {
      sendError(ctx, 404, "not_found", `No published pack "${slug}".`);
      return;
    }
    if (denied(slug, `pack "${slug}"`)) return;
    if (edition === "authoring" && pack.authoring !== true) {
      sendError(ctx, 404, "file_unavailable", `Pack "${slug}" has no authoring edition.`);
      return;
    }
    redirectToFile(
      core,
      ctx,
      core.state.packFile(pack, edition === "authoring" ? "authoring" : "standard"),
      303,
    );
    return;
  }
  const slug = String(assetSlug);
  const asset = core.state.asset(slug);
  if (asset === undefined || !published(asset)) {
    sendError(ctx, 404, "not_found", `No published asset "${slug}".`);
    return;
  }
  if (denied(asset.pack, `asset "${slug}"`)) return;
  if (asset.file_missing === true) {
    sendError(ctx, 404, "file_unavailable", `The file of asset "${slug}" is unavailable.`);
    return;
  }
  redirectToFile(core, ctx, core.state.assetFile(asset), 303);
}
