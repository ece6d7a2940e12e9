/**
 * Legacy `POST /api/download` (license key in a JSON body). Answers 303 to the
 * signed CDN URL. Denials (not shown by the spec; chosen here): 400
 * `invalid_request` (bad body), 401 `invalid_license_key` (missing, unknown or
 * not an `SVC_` key; counted by the `auth` policy), 403 `blocked`,
 * 403 `not_entitled` (the key does not cover the item), 403 `order_not_paid`,
 * 404 `not_found`, 404 `file_unavailable`, 429 `rate_limited` (`download`
 * budget per license key). Same error object as `/api/v1`.
 */
import { applyLimiter, failAuth } from "../auth.js";
import type { ServiceCore } from "../core.js";
import type { FixtureLicenseKey, FixtureOrder } from "../fixture-types.js";
import { type RequestContext, sendError } from "../http-util.js";
import { sendAssetFile, sendPackFile } from "./downloads.js";
import { publishedAsset, publishedPack } from "./respond.js";

interface LegacyBody {
  licenseKey?: unknown;
  packSlug?: unknown;
  assetSlug?: unknown;
  edition?: unknown;
}

/** What the body asks for: exactly one of a pack (with its edition) and an asset. */
type LegacyItem = { pack: string; authoring: boolean } | { asset: string };

/** The legacy route: body → license key → item → `download` budget → the item checks. */
export function legacyDownload(core: ServiceCore, ctx: RequestContext) {
  const body = readBody(ctx);
  if (body === null) return;
  const licensed = licensedOrder(core, ctx, body.licenseKey);
  if (licensed === null) return;
  const item = requestedItem(ctx, body);
  if (item === null) return;
  if (!applyLimiter(core, ctx, "download", licensed.license.id)) return;
  const { order } = licensed;
  if ("pack" in item) {
    const pack = publishedPack(core, ctx, item.pack);
    if (pack === undefined || denied(ctx, order, item.pack, `pack "${item.pack}"`)) return;
    sendPackFile(core, ctx, pack, item.authoring ? "authoring" : "standard", 303);
    return;
  }
  const asset = publishedAsset(core, ctx, item.asset);
  if (asset === undefined || denied(ctx, order, asset.pack, `asset "${item.asset}"`)) return;
  sendAssetFile(core, ctx, asset, 303);
}

/** The JSON object body, or null once 400 `invalid_request` is sent. */
function readBody(ctx: RequestContext): LegacyBody | null {
  const ct = ctx.req.headers["content-type"] ?? "";
  try {
    if (!/^application\/json\b/i.test(ct)) throw new Error("content type");
    const parsed: unknown = JSON.parse(ctx.body ?? "");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("shape");
    return parsed as LegacyBody;
  } catch {
    sendError(
      ctx,
      400,
      "invalid_request",
      "Send a JSON object body with Content-Type: application/json.",
    );
    return null;
  }
}

/** The license key's order, or null once 401 `invalid_license_key` or 403 `blocked` is sent. */
function licensedOrder(
  core: ServiceCore,
  ctx: RequestContext,
  licenseKey: unknown,
): { license: FixtureLicenseKey; order: FixtureOrder } | null {
  if (typeof licenseKey !== "string" || licenseKey === "") {
    failAuth(core, ctx, "invalid_license_key", "licenseKey is required.");
    return null;
  }
  const license = licenseKey.startsWith("SVC_") ? core.state.licenseKey(licenseKey) : undefined;
  const order = license === undefined ? undefined : core.state.order(license.order);
  const account = order === undefined ? undefined : core.state.account(order.account);
  if (license?.key !== licenseKey || order === undefined || account === undefined) {
    failAuth(core, ctx, "invalid_license_key", "The license key is malformed or unknown.");
    return null;
  }
  if (account.blocked === true) {
    sendError(ctx, 403, "blocked", "Access denied");
    return null;
  }
  return { license, order };
}

/** The item the body names, or null once 400 `invalid_request` is sent. */
function requestedItem(ctx: RequestContext, body: LegacyBody): LegacyItem | null {
  const { packSlug, assetSlug, edition } = body;
  const hasPack = typeof packSlug === "string" && packSlug !== "";
  const hasAsset = typeof assetSlug === "string" && assetSlug !== "";
  if (hasPack === hasAsset) {
    sendError(ctx, 400, "invalid_request", "Send exactly one of packSlug and assetSlug.");
    return null;
  }
  if (edition !== undefined && edition !== null && (edition !== "authoring" || !hasPack)) {
    sendError(
      ctx,
      400,
      "invalid_request",
      'edition may only be "authoring", and only with packSlug.',
    );
    return null;
  }
  return hasPack
    ? { pack: String(packSlug), authoring: edition === "authoring" }
    : { asset: String(assetSlug) };
}

/** Sends the denial when the license key does not cover `pack` or its order is not paid. */
function denied(ctx: RequestContext, order: FixtureOrder, pack: string | null, what: string) {
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
}
