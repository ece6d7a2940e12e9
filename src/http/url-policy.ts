import { isLoopbackHost } from "../config/base-url.js";
import { NetworkError } from "../errors/network-error.js";

/**
 * The scheme rules for every URL svc-dl requests (cli-contract "Downloads"): `https`, or
 * `http` only when the service itself is a loopback `http` address; any other scheme (`ftp:`,
 * `gopher:`, `file:`, …) and `http` under an `https` service are refused before a request is
 * sent. `from` is the URL that led here (a redirect's origin, for the https→http rule).
 *
 * Throws NetworkError (exit 7) `insecure_redirect` for https→http, `insecure_url` for `http`
 * where it is not allowed, `unsupported_scheme` for any other scheme.
 */
export function checkRequestUrl(
  url: URL,
  baseUrl: URL,
  from?: { url: URL; httpStatus: number; requestId: string | null },
): void {
  // `link` tells the hint where the URL came from: a redirect (its request id is printed) or a
  // record the service listed (no request was made for it)
  const where = {
    httpStatus: from?.httpStatus ?? null,
    requestId: from?.requestId ?? null,
    detail: { link: from ? "redirect" : "record" },
  };
  if (url.protocol === "https:") return;
  if (url.protocol !== "http:") {
    throw new NetworkError(
      `refusing ${from ? "redirect" : "request"} to a ${url.protocol} URL (only https is allowed)`,
      {
        code: from ? "bad_redirect" : "unsupported_scheme",
        ...where,
      },
    );
  }
  if (from?.url.protocol === "https:") {
    throw new NetworkError(`refusing redirect from https to http (${url.host})`, {
      code: "insecure_redirect",
      ...where,
    });
  }
  const loopbackService = baseUrl.protocol === "http:" && isLoopbackHost(baseUrl.hostname);
  if (!loopbackService || !isLoopbackHost(url.hostname)) {
    throw new NetworkError(
      `refusing clear-text http:// URL (${url.host}) under ${baseUrl.protocol} service`,
      {
        code: "insecure_url",
        ...where,
      },
    );
  }
}
