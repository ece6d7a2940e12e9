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

/**
 * Fetches every page of a list route (spec "Pagination object"), following
 * `next_cursor`/`has_more`. The spec does not name the cursor's query parameter, so each next
 * page is asked with both `cursor=<next_cursor>` and `offset=<items so far>`, which agree.
 * Stops at `max` items. Throws ResponseError (exit 7, code `broken_pagination`) on a
 * repeated cursor, an empty page that claims more, or more pages than `total` allows, so a
 * broken server can never loop us forever.
 */
export async function paginate<T>(client: HttpClient, opts: PaginateOptions<T>): Promise<T[]> {
  const schema = z.looseObject({ data: z.array(opts.item), pagination: PaginationSchema });
  const items: T[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  let maxPages = Number.POSITIVE_INFINITY;
  for (;;) {
    const query: Record<string, string | number | undefined> = { ...opts.query, limit: PAGE_SIZE };
    if (cursor !== null) {
      query.cursor = cursor;
      query.offset = items.length;
    }
    const { body, requestId } = await client.getJson(client.apiUrl(opts.path, query), schema);
    pages += 1;
    const { data, pagination } = body;
    if (pages === 1) maxPages = Math.ceil(pagination.total / Math.max(1, data.length || 1)) + 1;
    for (const item of data) {
      items.push(item);
      if (opts.max !== undefined && items.length >= opts.max) return items;
    }
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
    cursor = next;
  }
}
