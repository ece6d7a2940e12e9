import { z } from "zod";
import { ResponseError } from "../errors/response-error.js";
import type { HttpClient } from "./http.js";
import { PaginationSchema } from "./schemas.js";

/** Page size svc-dl asks for (cli-contract "packs list": page size 100). */
export const PAGE_SIZE = 100;

/** Options of {@link paginate}. */
export interface PaginateOptions<T> {
  /** API path under `/api/v1`, e.g. `packs`. */
  path: string;
  /** Schema of one item of `data`. */
  item: z.ZodType<T>;
  /** Stop after this many items (`--limit`). */
  max?: number;
  /** Extra query parameters. */
  query?: Record<string, string>;
}

/** Options of {@link paginateUrl}. */
export interface PaginateUrlOptions<T> {
  /** Schema of one item of `data`. */
  item: z.ZodType<T>;
  /** Stop after this many items. */
  max?: number;
  /**
   * When true, a response without a `pagination` object is taken as the only page (for
   * `svc-dl api --paginate` on routes whose shape the spec does not show). Default false: the
   * object is required and its absence is a ResponseError (exit 7).
   */
  paginationOptional?: boolean;
  /** Send the API key (default true). */
  authenticate?: boolean;
}

/**
 * Fetches every page of a list route (spec "Pagination object"), following
 * `next_cursor`/`has_more`, asking `limit=100` unless `query.limit` is given. See
 * {@link paginateUrl} for the loop and its errors.
 */
export async function paginate<T>(client: HttpClient, opts: PaginateOptions<T>): Promise<T[]> {
  const url = client.apiUrl(opts.path, { limit: PAGE_SIZE, ...opts.query });
  return paginateUrl(client, url, {
    item: opts.item,
    ...(opts.max !== undefined ? { max: opts.max } : {}),
  });
}

/**
 * The one pagination loop of svc-dl (`packs list`, `api --paginate`): GETs `firstUrl` (its
 * query kept on every page), then each next page with `cursor=<next_cursor>` and
 * `offset=<offset + items of the page>` added (the spec does not name the cursor's query
 * parameter; both agree). Returns the merged `data` items; stops at `max` items. Throws
 * ResponseError (exit 7, code `broken_pagination`) on a repeated cursor, an empty page that
 * claims more, or more pages than `total` allows, so a broken server can never loop us
 * forever; errors of each request as HttpClient.getJson (retries and pacing included).
 */
export async function paginateUrl<T>(
  client: HttpClient,
  firstUrl: URL,
  opts: PaginateUrlOptions<T>,
): Promise<T[]> {
  const schema = z.looseObject({
    data: z.array(opts.item),
    pagination: opts.paginationOptional ? PaginationSchema.optional() : PaginationSchema,
  });
  const items: T[] = [];
  const seenCursors = new Set<string>();
  let url = firstUrl;
  let pages = 0;
  let maxPages = Number.POSITIVE_INFINITY;
  for (;;) {
    const { body, requestId } = await client.getJson(
      url,
      schema,
      opts.authenticate === false ? { authenticate: false } : {},
    );
    pages += 1;
    const data = body.data as T[];
    const pagination = body.pagination as z.infer<typeof PaginationSchema> | undefined;
    for (const item of data) {
      items.push(item);
      if (opts.max !== undefined && items.length >= opts.max) return items;
    }
    if (pagination === undefined) return items;
    if (pages === 1) maxPages = Math.ceil(pagination.total / Math.max(1, data.length)) + 1;
    const next = pagination.next_cursor;
    if (!pagination.has_more || next === null) return items;
    const broken = (why: string) =>
      new ResponseError(`the service's pagination did not end: ${why}`, {
        code: "broken_pagination",
        httpStatus: 200,
        requestId,
      });
    if (data.length === 0) throw broken("an empty page claims there is more");
    if (seenCursors.has(next)) throw broken(`cursor ${JSON.stringify(next)} came back again`);
    if (pages >= maxPages) throw broken(`more pages than total=${pagination.total} allows`);
    seenCursors.add(next);
    url = new URL(firstUrl.href);
    url.searchParams.set("cursor", next);
    url.searchParams.set("offset", String(pagination.offset + data.length));
  }
}
