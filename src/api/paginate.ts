import { ResponseError } from "../errors/response-error.js";
import type { HttpClient } from "../http/client.js";
import { counted } from "../io/plural.js";
import * as z from "../io/schema.js";
import { PaginationSchema } from "./schemas.js";

/** Page size svc-dl asks for (cli-contract "packs list": page size 100). */
export const PAGE_SIZE = 100;

/** Options of {@link paginate}. */
export interface PaginateOptions<T> {
  /** API path under `/api/v1`, e.g. `packs`. */
  path: string;
  /** Schema of one item of `data`. */
  item: z.ZodMiniType<T>;
  /** Stop after this many items (`--limit`). */
  max?: number;
  /** Extra query parameters. */
  query?: Record<string, string>;
}

/** Options of {@link paginateUrl}. */
export interface PaginateUrlOptions<T> {
  /** Schema of one item of `data`. */
  item: z.ZodMiniType<T>;
  /** Stop after this many items. */
  max?: number;
  /** Send the API key (default true). */
  authenticate?: boolean;
}

/**
 * Fetches every page of a list route (spec "Pagination object"), following
 * `next_cursor`/`has_more`, asking `limit=100` unless `query.limit` is given. See
 * {@link paginateUrl} for the loop and its errors.
 */
export async function paginate<T>(client: HttpClient, opts: PaginateOptions<T>): Promise<T[]> {
  return (await paginateListing(client, opts)).items;
}

/**
 * A listing of every page and what its pages said about themselves (spec "Pagination object"):
 * `inconsistency` is undefined when the items seen equal the `total` every page gave, else a
 * sentence saying how the listing contradicts itself (`total` changed between pages; fewer or
 * more items than `total`). Only a step that acts on what is *missing* from a listing needs it
 * (`packs sync --prune`); a listing cut short by `max` is never called inconsistent.
 */
export interface Listing<T> {
  items: T[];
  inconsistency: string | undefined;
}

/** {@link paginate} with the listing's own check of completeness ({@link Listing}). */
export async function paginateListing<T>(
  client: HttpClient,
  opts: PaginateOptions<T>,
): Promise<Listing<T>> {
  const url = client.apiUrl(opts.path, { limit: PAGE_SIZE, ...opts.query });
  const max = opts.max !== undefined ? { max: opts.max } : {};
  return listingOf(client, url, { item: opts.item, ...max });
}

/**
 * The pagination loop of svc-dl for a list route: GETs `firstUrl` (its query kept on every
 * page), then each next page with `cursor=<next_cursor>` and `offset=<offset + items of the
 * page>` added (the spec does not name the cursor's query parameter; both agree). Returns the
 * merged `data` items; stops at `max` items. Every page must be `{data:[…], pagination}`, else
 * ResponseError (exit 7). Throws ResponseError (exit 7, code `broken_pagination`) on a
 * repeated cursor, an empty page that claims more, or more pages than `total` allows, so a
 * broken server can never loop us forever; errors of each request as HttpClient.getJson
 * (retries and pacing included).
 */
export async function paginateUrl<T>(
  client: HttpClient,
  firstUrl: URL,
  opts: PaginateUrlOptions<T>,
): Promise<T[]> {
  return (await listingOf(client, firstUrl, opts)).items;
}

/** {@link paginateUrl} with the listing's check of completeness. */
async function listingOf<T>(
  client: HttpClient,
  firstUrl: URL,
  opts: PaginateUrlOptions<T>,
): Promise<Listing<T>> {
  const schema = z.looseObject({ data: z.array(opts.item), pagination: PaginationSchema });
  const first = await client.getJson(firstUrl, schema, auth(opts.authenticate));
  return followPages(client, firstUrl, first.body, first.requestId, schema, opts);
}

/**
 * `svc-dl api --paginate`: like {@link paginateUrl} with items kept as received, except that a
 * first response that is not a list envelope (`{data:[…], pagination}`) is returned whole as
 * `{ body }` (a route that has no pages). Later pages must be list envelopes.
 */
export async function paginateAny(
  client: HttpClient,
  firstUrl: URL,
  opts: { authenticate?: boolean } = {},
): Promise<{ items: unknown[] } | { body: unknown }> {
  const schema = z.looseObject({ data: z.array(z.unknown()), pagination: PaginationSchema });
  const first = await client.getJson(firstUrl, z.unknown(), auth(opts.authenticate));
  const parsed = schema.safeParse(first.body);
  if (!parsed.success) return { body: first.body };
  const { items } = await followPages(client, firstUrl, parsed.data, first.requestId, schema, {
    item: z.unknown(),
    ...(opts.authenticate !== undefined ? { authenticate: opts.authenticate } : {}),
  });
  return { items };
}

function auth(authenticate: boolean | undefined): { authenticate?: boolean } {
  return authenticate === false ? { authenticate: false } : {};
}

/** The one loop: starts from the first page already fetched. */
async function followPages<T>(
  client: HttpClient,
  firstUrl: URL,
  firstBody: { data: T[]; pagination: z.infer<typeof PaginationSchema> },
  firstRequestId: string | null,
  schema: z.ZodMiniType<{ data: T[]; pagination: z.infer<typeof PaginationSchema> }>,
  opts: PaginateUrlOptions<T>,
): Promise<Listing<T>> {
  const items: T[] = [];
  const seenCursors = new Set<string>();
  let body = firstBody;
  let requestId = firstRequestId;
  let pages = 1;
  const maxPages = Math.ceil(body.pagination.total / Math.max(1, body.data.length)) + 1;
  const totals = new Set<number>();
  for (;;) {
    const { data, pagination } = body;
    totals.add(pagination.total);
    for (const item of data) {
      items.push(item);
      if (opts.max !== undefined && items.length >= opts.max) {
        return { items, inconsistency: undefined };
      }
    }
    const next = pagination.next_cursor;
    if (!pagination.has_more || next === null) {
      return { items, inconsistency: inconsistency(items.length, [...totals]) };
    }
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
    const url = new URL(firstUrl.href);
    url.searchParams.set("cursor", next);
    url.searchParams.set("offset", String(pagination.offset + data.length));
    const page = await client.getJson(url, schema, auth(opts.authenticate));
    body = page.body;
    requestId = page.requestId;
    pages += 1;
  }
}

/** How a listing that ended contradicts itself, or undefined (see {@link Listing}). */
function inconsistency(seen: number, totals: readonly number[]): string | undefined {
  if (totals.length > 1) return `its total changed between pages (${totals.join(", then ")})`;
  const total = totals[0] ?? seen;
  if (seen !== total) return `it ended after ${counted(seen, "item")}, but its total says ${total}`;
  return undefined;
}
