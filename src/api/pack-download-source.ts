import type { DownloadSource } from "../download/fetch-body.js";
import { ResponseError } from "../errors/response-error.js";
import type { HttpClient } from "../http/client.js";
import type { Pack } from "./schemas.js";

/**
 * The download request of a pack edition (spec "Endpoints": clients use the URLs the pack
 * record gives): the record's `downloads.bundle` / `downloads.authoring` URL, resolved against
 * the base URL, else the API route `/v1/packs/{slug}/download[?edition=authoring]`, so that the
 * service answers with its own error (`not_entitled`, `not_found`, `file_unavailable`) for a
 * pack the account does not own or an edition it lacks. `listOnce` gives every pack of
 * `/v1/packs` (all pages; the caller lists once per run). The URL's scheme is checked later, by
 * the download itself (cli-contract "Downloads"). Throws ResponseError (exit 7) when the
 * record's URL is not a URL, and what `listOnce` throws.
 */
export async function packDownloadSource(
  client: HttpClient,
  listOnce: () => Promise<readonly Pack[]>,
  slug: string,
  edition: "standard" | "authoring",
): Promise<DownloadSource> {
  const pack = (await listOnce()).find((p) => p.slug === slug);
  const given = edition === "authoring" ? pack?.downloads.authoring : pack?.downloads.bundle;
  if (given === undefined) {
    return {
      url: client.apiUrl(
        `packs/${encodeURIComponent(slug)}/download`,
        edition === "authoring" ? { edition: "authoring" } : {},
      ),
    };
  }
  try {
    return { url: new URL(given, client.baseUrl) };
  } catch (err) {
    throw new ResponseError(`the pack record's download URL is not a URL: ${given.slice(0, 80)}`, {
      httpStatus: null,
      requestId: null,
      cause: err,
    });
  }
}
