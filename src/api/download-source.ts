import { ResponseError } from "../errors/response-error.js";
import type { HttpClient } from "../http/client.js";
import type { DownloadSource, Edition, ItemRef } from "../model.js";
import type { PackCatalog } from "./pack-catalog.js";

/**
 * The API route of a pack edition (spec "Endpoints"): `GET /v1/packs/{slug}/download`, with
 * `?edition=authoring` for the authoring edition. The service answers a pack the account does
 * not own, or an edition it lacks, with its own error (`not_entitled`, `not_found`,
 * `file_unavailable`).
 */
export function packRoute(client: HttpClient, slug: string, edition: Edition): DownloadSource {
  return {
    url: client.apiUrl(
      `packs/${encodeURIComponent(slug)}/download`,
      edition === "authoring" ? { edition: "authoring" } : {},
    ),
  };
}

/** The API route of an asset (spec "Endpoints"): `GET /v1/assets/{slug}/download`. */
export function assetSource(client: HttpClient, slug: string): DownloadSource {
  return { url: client.apiUrl(`assets/${encodeURIComponent(slug)}/download`) };
}

/** The API route that serves an item (a pack edition or an asset), as `verify --repair` asks it again. */
export function routeSource(client: HttpClient, item: ItemRef): DownloadSource {
  return item.kind === "asset"
    ? assetSource(client, item.slug)
    : packRoute(client, item.slug, item.edition ?? "standard");
}

/**
 * The download request of a pack edition (spec "Endpoints": clients use the URLs the pack
 * record gives): the record's `downloads.bundle` / `downloads.authoring` URL, resolved against
 * the base URL, else {@link packRoute}. The catalog is listed once per run. The URL's scheme is
 * checked later, by the download itself (cli-contract "Downloads"). Throws ResponseError
 * (exit 7) when the record's URL is not a URL, and what the catalog throws.
 */
export async function packSource(
  client: HttpClient,
  catalog: PackCatalog,
  slug: string,
  edition: Edition,
): Promise<DownloadSource> {
  const pack = await catalog.find(slug);
  const given = edition === "authoring" ? pack?.downloads.authoring : pack?.downloads.bundle;
  // listed: a refusal of its download is not "not bought" (spec "Order payment")
  if (given === undefined) {
    const route = packRoute(client, slug, edition);
    return pack ? { ...route, facts: { listed: true } } : route;
  }
  try {
    return { url: new URL(given, client.baseUrl), facts: { listed: true } };
  } catch (err) {
    throw new ResponseError(`the pack record's download URL is not a URL: ${given.slice(0, 80)}`, {
      httpStatus: null,
      requestId: null,
      cause: err,
    });
  }
}
