/**
 * The API origin: `/api/v1/*` (spec, Endpoints), the public catalog, the
 * legacy `POST /api/download`, and public asset previews. One file per route group:
 * account.ts (metadata reads), downloads.ts, catalog.ts, previews.ts, legacy.ts.
 */
import type { ServiceCore } from "../core.js";
import { type RequestContext, sendError, sendHtmlError } from "../http-util.js";
import { assetsList, me, ordersList, packsList } from "./account.js";
import { catalog } from "./catalog.js";
import { assetDownload, packDownload } from "./downloads.js";
import { legacyDownload } from "./legacy.js";
import { previewFile } from "./previews.js";
import { decode } from "./respond.js";

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

function notFoundRoute(ctx: RequestContext) {
  sendError(ctx, 404, "not_found", `No route ${ctx.req.method ?? "GET"} ${ctx.url.pathname}.`);
}

function methodNotAllowed(ctx: RequestContext, allow: string) {
  sendError(ctx, 405, "method_not_allowed", `Use ${allow} on this route.`, { Allow: allow });
}
