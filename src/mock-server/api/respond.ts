/**
 * Answers shared by the API route groups: 200 JSON documents (one or a page of a list), and
 * the lookup of a published pack or asset (404 `not_found` otherwise).
 */
import type { ServiceCore } from "../core.js";
import type { FixtureAsset, FixturePack } from "../fixture-types.js";
import { type RequestContext, sendError, sendJson } from "../http-util.js";
import { paginate } from "../pagination.js";

/** A path segment, percent-decoded (kept as sent when it does not decode). */
export function decode(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? "");
  } catch {
    return s ?? "";
  }
}

/** 200 with `{ data, pagination? }`, honouring the `malformedJson` fault. */
export function ok(core: ServiceCore, ctx: RequestContext, payload: unknown) {
  sendJson(ctx, 200, payload, {}, core.faults.take("malformedJson"));
}

/** 200 with one page of `items` (spec, Pagination), honouring the `paginationLoop` fault. */
export function list(core: ServiceCore, ctx: RequestContext, items: unknown[]) {
  const page = paginate(ctx, items, core.faults.faults.paginationLoop === true);
  if (page === null) return;
  ok(core, ctx, { data: page.data, pagination: page.pagination });
}

/** Whether a pack or asset is published (the default availability). */
export const published = (x: { availability?: string | undefined }) =>
  (x.availability ?? "published") === "published";

/** The published pack `slug`, or undefined once 404 `not_found` is sent. */
export const publishedPack = (core: ServiceCore, ctx: RequestContext, slug: string) =>
  publishedOnly(ctx, "pack", slug, core.state.pack(slug));

/** The published asset `slug`, or undefined once 404 `not_found` is sent. */
export const publishedAsset = (core: ServiceCore, ctx: RequestContext, slug: string) =>
  publishedOnly(ctx, "asset", slug, core.state.asset(slug));

function publishedOnly<T extends FixturePack | FixtureAsset>(
  ctx: RequestContext,
  kind: "pack" | "asset",
  slug: string,
  item: T | undefined,
): T | undefined {
  if (item !== undefined && published(item)) return item;
  sendError(ctx, 404, "not_found", `No published ${kind} "${slug}".`);
  return undefined;
}
