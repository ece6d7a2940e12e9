import type { HttpClient } from "../http/client.js";
import { paginate } from "./paginate.js";
import { type Pack, PackSchema } from "./schemas.js";

/**
 * `GET /v1/packs` (spec "Endpoints"), every page: the packs the account owns, as received.
 * `max` stops after that many packs. Budget: read. Throws as {@link paginate}.
 */
export async function listPacks(client: HttpClient, opts: { max?: number } = {}): Promise<Pack[]> {
  return paginate(client, {
    path: "packs",
    item: PackSchema,
    ...(opts.max !== undefined ? { max: opts.max } : {}),
  });
}
