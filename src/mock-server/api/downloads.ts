/**
 * Download routes: `GET /v1/packs/{slug}/download`, `GET /v1/assets/{slug}/download` (302 to a
 * signed CDN URL), and the file answers the legacy route shares with them.
 */
import { authenticate, type Principal } from "../auth.js";
import { type ServiceCore, signedFileUrl } from "../core.js";
import { FileStore } from "../files.js";
import type { Edition, FixtureAsset, FixturePack } from "../fixture-types.js";
import { type RequestContext, sendError } from "../http-util.js";
import type { FileSpec } from "../state.js";
import { publishedAsset, publishedPack } from "./respond.js";

/** The status of a download's redirect: 302 on `/api/v1`, 303 after the legacy POST. */
export type RedirectStatus = 302 | 303;

function redirectTo(ctx: RequestContext, status: RedirectStatus, location: string) {
  ctx.res.writeHead(status, {
    Location: location,
    "Cache-Control": "no-store",
    "Content-Length": "0",
  });
  ctx.res.end();
}

function redirectToFile(
  core: ServiceCore,
  ctx: RequestContext,
  spec: FileSpec,
  status: RedirectStatus,
) {
  if (core.faults.faults.redirectLoop === true) {
    redirectTo(ctx, status, `${core.baseUrl}${ctx.url.pathname}${ctx.url.search}`);
    return;
  }
  redirectTo(ctx, status, signedFileUrl(core, spec, FileStore.filename(spec)));
}

/** Redirects to the file of `pack` in `edition`, or 404 `file_unavailable` when it has none. */
export function sendPackFile(
  core: ServiceCore,
  ctx: RequestContext,
  pack: FixturePack,
  edition: Edition,
  status: RedirectStatus,
) {
  if (edition === "authoring" && pack.authoring !== true) {
    sendError(ctx, 404, "file_unavailable", `Pack "${pack.slug}" has no authoring edition.`);
    return;
  }
  redirectToFile(core, ctx, core.state.packFile(pack, edition), status);
}

/** Redirects to the file of `asset`, or 404 `file_unavailable` when its file is missing. */
export function sendAssetFile(
  core: ServiceCore,
  ctx: RequestContext,
  asset: FixtureAsset,
  status: RedirectStatus,
) {
  if (asset.file_missing === true) {
    sendError(ctx, 404, "file_unavailable", `The file of asset "${asset.slug}" is unavailable.`);
    return;
  }
  redirectToFile(core, ctx, core.state.assetFile(asset), status);
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
export function packDownload(core: ServiceCore, ctx: RequestContext, slug: string) {
  const who: Principal | null = authenticate(core, ctx, "download", "downloads:read");
  if (who === null) return;
  const edition = parseEdition(ctx, ctx.url.searchParams.get("edition"));
  if (edition === null) return;
  const pack = publishedPack(core, ctx, slug);
  if (pack === undefined) return;
  const access = core.state.packAccess(who.account, slug);
  if (access === "unpaid") return denyUnpaid(ctx, `Pack "${slug}"`);
  if (access === "none") {
    sendError(ctx, 403, "not_entitled", `Pack "${slug}" is not among this account's purchases.`);
    return;
  }
  sendPackFile(core, ctx, pack, edition, 302);
}

/** Item checks of an asset download: not_found → not_entitled (premium only) → file_unavailable. */
export function assetDownload(core: ServiceCore, ctx: RequestContext, slug: string) {
  const who = authenticate(core, ctx, "download", "downloads:read");
  if (who === null) return;
  const asset = publishedAsset(core, ctx, slug);
  if (asset === undefined) return;
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
  sendAssetFile(core, ctx, asset, 302);
}
