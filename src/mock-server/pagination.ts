/**
 * Pagination of list routes (spec, Pagination object). Query: `limit`
 * (integer 1–100, default 50; larger values are clamped to 100) and `cursor`
 * (opaque `next_cursor` of the previous page). Errors: 400 `invalid_request`.
 */
import { type RequestContext, sendError } from "./http-util.js";

/** Default page size. */
export const DEFAULT_LIMIT = 50;
/** Maximum page size (larger `limit` values are clamped). */
export const MAX_LIMIT = 100;

/** The pagination object sent beside `data`. */
export interface Pagination {
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
  next_cursor: string | null;
}

/** Opaque cursor for an offset: `c1_` + base64url of `{"o":offset}`. */
export function encodeCursor(offset: number): string {
  return `c1_${Buffer.from(JSON.stringify({ o: offset })).toString("base64url")}`;
}

/** Offset of a cursor, or null when it is not one of ours. */
export function decodeCursor(cursor: string): number | null {
  if (!cursor.startsWith("c1_")) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor.slice(3), "base64url").toString("utf8"));
    if (typeof v === "object" && v !== null && "o" in v) {
      const o = (v as { o: unknown }).o;
      if (typeof o === "number" && Number.isInteger(o) && o >= 0) return o;
    }
  } catch {
    // fall through
  }
  return null;
}

/**
 * One page of `items` for the request's `limit`/`cursor`; null when a 400 was sent.
 * With `loop` (fault `paginationLoop`) every page says `has_more: true` and
 * repeats the same `next_cursor`.
 */
export function paginate<T>(
  ctx: RequestContext,
  items: T[],
  loop = false,
): { data: T[]; pagination: Pagination } | null {
  const rawLimit = ctx.url.searchParams.get("limit");
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== null) {
    const n = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || n < 1) {
      sendError(ctx, 400, "invalid_request", "limit must be a positive integer (maximum 100).");
      return null;
    }
    limit = Math.min(n, MAX_LIMIT);
  }
  const rawCursor = ctx.url.searchParams.get("cursor");
  let offset = 0;
  if (rawCursor !== null && rawCursor !== "") {
    const o = decodeCursor(rawCursor);
    if (o === null) {
      sendError(ctx, 400, "invalid_request", "cursor is not a next_cursor value of this API.");
      return null;
    }
    offset = o;
  }
  const data = items.slice(offset, offset + limit);
  const hasMore = loop || offset + data.length < items.length;
  return {
    data,
    pagination: {
      limit,
      offset,
      total: items.length,
      has_more: hasMore,
      next_cursor: loop ? encodeCursor(limit) : hasMore ? encodeCursor(offset + limit) : null,
    },
  };
}
