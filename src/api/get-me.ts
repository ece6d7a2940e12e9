import type { HttpClient } from "../http/client.js";
import type { ResponseHeaders } from "../http/response-body.js";
import { envelope, type Me, MeSchema } from "./schemas.js";

/**
 * `GET /v1/me` (spec "Endpoints"): the account, its entitlements and the key used, the
 * cheapest check of credentials; `headers` (e.g. `Date`) for `doctor`; `signal`: doctor's probe
 * time limit. Budget: read. Throws ApiError (`invalid_api_key`, …),
 * ResponseError on a wrong shape, NetworkError after retries.
 */
export async function getMe(
  client: HttpClient,
  opts: { signal?: AbortSignal } = {},
): Promise<{ me: Me; requestId: string | null; headers: ResponseHeaders }> {
  const { body, requestId, headers } = await client.getJson(
    client.apiUrl("me"),
    envelope(MeSchema),
    opts,
  );
  return { me: body.data, requestId, headers };
}
