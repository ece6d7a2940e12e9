import * as z from "zod/mini";
import { slugProblem } from "./slug.js";

/**
 * zod schemas of the spec's resources ("Resources and their fields"). Objects are loose:
 * extra fields the service adds are tolerated and kept, so `--json` prints what was received.
 * Declared with `zod/mini` itself, not src/io/schema.ts: the library's declarations name
 * these types and stay clear of src/io/; their messages come from the module that validates
 * the answers (src/http/response-errors.ts), which installs the locale.
 */

/**
 * A slug from the service, checked once here before anything uses it (names, hooks, logs;
 * src/api/slug.ts): one with a newline, a `/`, a bidi control… makes the whole response break
 * the spec (exit 7 `unexpected_response`), a listing included.
 */
const slug = z.string().check(
  z.refine((s) => slugProblem(s) === undefined, {
    message:
      "is not a usable slug (empty, . or .., or with /, \\, a control or a format character)",
  }),
);

/** ISO 8601 UTC timestamp with milliseconds; kept as the string received. */
const timestamp = z.string().check(z.minLength(1));

/** Account (`data.account` of `/v1/me`). */
export const AccountSchema = z.looseObject({
  id: z.string(),
  email: z.string(),
  name: z.string(),
});
export type Account = z.infer<typeof AccountSchema>;

/** Entitlements (`data.entitlements` of `/v1/me`). */
export const EntitlementsSchema = z.looseObject({
  lifetime: z.boolean(),
  owned_product_slugs: z.array(slug),
  pack_count: z.number().check(z.int()),
  asset_count: z.number().check(z.int()),
});
export type Entitlements = z.infer<typeof EntitlementsSchema>;

/** API key record (`data.key` of `/v1/me`): never the full key, only its `preview`. */
export const ApiKeySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  preview: z.string(),
  scopes: z.array(z.string()),
  created_at: timestamp,
  last_used_at: z.nullable(timestamp),
});
export type ApiKeyRecord = z.infer<typeof ApiKeySchema>;

/** `data` of `GET /v1/me`. */
export const MeSchema = z.looseObject({
  account: AccountSchema,
  entitlements: EntitlementsSchema,
  key: ApiKeySchema,
});
export type Me = z.infer<typeof MeSchema>;

/** Pack (item of `data` in `/v1/packs`); `downloads` holds ready-made absolute URLs. */
export const PackSchema = z.looseObject({
  slug,
  name: z.string(),
  description: z.string(),
  asset_count: z.number().check(z.int()),
  categories: z.array(z.string()),
  purchased_at: timestamp,
  order_id: z.string(),
  downloads: z.looseObject({
    bundle: z.string().check(z.minLength(1)),
    authoring: z.optional(z.string().check(z.minLength(1))),
  }),
});
export type Pack = z.infer<typeof PackSchema>;

/** Pagination object (sibling of `data` in list responses). */
export const PaginationSchema = z.looseObject({
  limit: z.number().check(z.int()),
  offset: z.number().check(z.int()),
  total: z.number().check(z.int()),
  has_more: z.boolean(),
  next_cursor: z.nullable(z.string()),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/** `{ data: T }` envelope of every successful JSON response. */
export function envelope<T extends z.ZodMiniType>(data: T) {
  return z.looseObject({ data });
}

/**
 * An asset record of `GET /v1/assets` (spec "Other resources": Asset). The spec shows only
 * `slug`, `preview_url` and `download_url`; the object is loose, so every other field the
 * service sends is kept as received.
 */
export const AssetRecordSchema = z.looseObject({
  slug,
  preview_url: z.optional(z.string()),
  download_url: z.optional(z.string()),
});
/** One asset record, as received. */
export type AssetRecord = z.infer<typeof AssetRecordSchema>;

/** `{ data: [T], pagination }` envelope of list responses. */
export function listEnvelope<T extends z.ZodMiniType>(item: T) {
  return z.looseObject({ data: z.array(item), pagination: PaginationSchema });
}
