import { z } from "zod";
import type { HttpClient } from "../http/client.js";
import { paginate } from "./paginate.js";

/**
 * An asset record of `GET /v1/assets` (spec "Other resources": Asset). The spec shows only
 * `slug`, `preview_url` and `download_url`; the object is loose, so every other field the
 * service sends is kept as received.
 */
export const AssetRecordSchema = z.looseObject({
  slug: z.string().min(1),
  preview_url: z.string().optional(),
  download_url: z.string().optional(),
});
/** One asset record, as received. */
export type AssetRecord = z.infer<typeof AssetRecordSchema>;

/**
 * `GET /v1/assets` (spec "Endpoints"), every page (the spec's Pagination object, followed as
 * for packs by src/api/paginate.ts, which stops on a repeated cursor, an empty page that claims
 * more, or more pages than `total` allows). Budget: read. Throws as `paginate`.
 */
export async function listAssets(client: HttpClient): Promise<AssetRecord[]> {
  return paginate(client, { path: "assets", item: AssetRecordSchema });
}
