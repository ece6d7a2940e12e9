import { ApiError } from "../errors/api-error.js";
import type { SvcError } from "../errors/svc-error.js";

/**
 * A top-level API route (`/api/v1/<name>`: `me`, `packs`, `assets`, …). The spec's top-level
 * routes answer 404 for no missing item, so a 404 there means the route itself is not there.
 */
const TOP_LEVEL_ROUTE = /^\/api\/v1\/[^/]+\/?$/;

/**
 * A 404 of the service reported against the base URL (cli-contract "Configuration": the base
 * URL is the service address without `/api`), so a base URL with a wrong path (`…/store`) is
 * named rather than blamed on a slug:
 * - a 404 of a top-level route becomes `route_not_found` (exit 5), naming the route, the base
 *   URL and `source` (where it was set), with a hint to check the base URL;
 * - a `not_found` of any other route under a base URL that has a path says so in its message;
 * - anything else (another origin, a base URL without a path) is returned unchanged.
 * `error` is the typed error of the response (its code, request id and status are kept).
 */
export function notFoundUnderBase(
  error: SvcError,
  url: URL,
  baseUrl: URL,
  source: string | undefined,
): SvcError {
  if (url.origin !== baseUrl.origin) return error;
  const basePath = baseUrl.pathname.replace(/\/+$/, "");
  if (!url.pathname.startsWith(`${basePath}/`)) return error;
  const route = url.pathname.slice(basePath.length);
  const base = `${baseUrl.origin}${basePath}`;
  const from = source ? ` (from ${source})` : "";
  const answer = error instanceof ApiError ? ` ${error.code}` : ` (${error.message})`;
  if (TOP_LEVEL_ROUTE.test(route)) {
    return new ApiError({
      code: "route_not_found",
      message: `the service has no route ${route} under the base URL ${base}${from}: HTTP 404${answer}`,
      httpStatus: 404,
      requestId: error.requestId,
      // a path in the base URL is the likely cause: the table's hint says so; else, for
      // `svc-dl api`, it points at the route the user typed
      detail: { basePath, base, from: source, origin: baseUrl.origin },
    });
  }
  if (basePath === "" || error.code !== "not_found") return error;
  return new ApiError({
    code: error.code,
    message: `${error.message} (under the base URL ${base}${from})`,
    httpStatus: 404,
    requestId: error.requestId,
    detail: error.detail,
  });
}
