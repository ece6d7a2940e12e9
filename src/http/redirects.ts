import { NetworkError } from "../errors/network-error.js";
import type { HttpResponse, RequestSpec } from "./request-types.js";
import { headerValue } from "./response-body.js";
import { checkRequestUrl } from "./url-policy.js";

/** Most redirects followed (cli-contract "Downloads"). */
export const MAX_REDIRECTS = 10;

/** True for the statuses that redirect: 301, 302, 303, 307, 308. */
export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * Sends `spec` with `exchange` and follows redirects by our own rules (cli-contract "Downloads"):
 * at most {@link MAX_REDIRECTS} hops, every Location checked against the scheme rules of
 * `baseUrl` (https→http refused), 303 (and any redirect of a POST) continued as a GET without
 * the body, every other header (Range, If-Range, If-None-Match) kept; a redirect's body is
 * dumped. Returns the first answer that is not a redirect. Throws NetworkError `bad_redirect`
 * (no or invalid Location), `too_many_redirects`, `insecure_redirect` / `insecure_url` /
 * `unsupported_scheme` (scheme rules), and whatever `exchange` throws.
 */
export async function followRedirects(
  spec: RequestSpec,
  exchange: (spec: RequestSpec) => Promise<HttpResponse>,
  baseUrl: URL,
): Promise<HttpResponse> {
  let current: RequestSpec = spec;
  for (let hop = 0; ; hop++) {
    const res = await exchange(current);
    if (!isRedirect(res.status)) return res;
    const location = headerValue(res.headers, "location");
    res.body.dump();
    const where = { httpStatus: res.status, requestId: res.requestId };
    if (!location) {
      throw new NetworkError(`redirect ${res.status} without a Location header`, {
        code: "bad_redirect",
        ...where,
      });
    }
    if (hop + 1 > MAX_REDIRECTS) {
      throw new NetworkError(`too many redirects (more than ${MAX_REDIRECTS})`, {
        code: "too_many_redirects",
        ...where,
      });
    }
    let next: URL;
    try {
      next = new URL(location, current.url);
    } catch (err) {
      throw new NetworkError(`redirect to an invalid location`, {
        code: "bad_redirect",
        ...where,
        cause: err,
      });
    }
    checkRequestUrl(next, baseUrl, { url: current.url, ...where });
    const { body: _body, method: _method, ...rest } = current;
    const headers = { ...current.headers };
    delete headers["content-type"];
    delete headers["content-length"];
    current = { ...rest, url: next, method: "GET", headers };
  }
}
