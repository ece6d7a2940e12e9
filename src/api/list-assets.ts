import type { HttpClient } from "../http/client.js";
import { paginate } from "./paginate.js";
import { type AssetRecord, AssetRecordSchema } from "./schemas.js";

/**
 * `GET /v1/assets` (spec "Endpoints"), every page (the spec's Pagination object, followed as
 * for packs by src/api/paginate.ts, which stops on a repeated cursor, an empty page that claims
 * more, or more pages than `total` allows). Budget: read. Throws as `paginate`.
 */
export async function listAssets(client: HttpClient): Promise<AssetRecord[]> {
  return paginate(client, { path: "assets", item: AssetRecordSchema });
}
