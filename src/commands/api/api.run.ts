import { paginateAny } from "../../api/paginate.js";
import { SvcError } from "../../errors/svc-error.js";
import { UsageError } from "../../errors/usage-error.js";
import * as z from "../../io/schema.js";
import type { Session } from "../../session.js";

/** Options of `svc-dl api`. */
export interface ApiOptions {
  /** Follow the pagination object and print one merged `data` array. */
  paginate?: boolean;
}

/**
 * The route part of `svc-dl api PATH`: tolerates a leading `/`, an `api/v1/` or `v1/` prefix and
 * a full URL under `{base_url}/api/v1/`; keeps any query string. Throws UsageError (exit 2,
 * `invalid_api_path`, before any request) for an empty path, a URL of another service, and a
 * path under another API root or version (`/api/v2/x`, `api/x`, `v2/x`), which would otherwise
 * be sent as `/api/v1/api/v2/x`.
 */
export function routeOf(raw: string, baseUrl: URL): string {
  let path = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    const prefix = `${baseUrl.href.replace(/\/+$/, "")}/api/v1/`;
    if (!path.startsWith(prefix)) {
      throw new UsageError(`${path} is not under ${prefix}`, {
        code: "invalid_api_path",
      });
    }
    path = path.slice(prefix.length);
  }
  path = path
    .replace(/^\/+/, "")
    .replace(/^api\/v1(\/|$)/, "")
    .replace(/^v1(\/|$)/, "");
  if (path === "" || path.startsWith("?")) {
    throw new UsageError("no API path given", {
      code: "invalid_api_path",
    });
  }
  const outside = /^(api|v\d+)(\/|\?|$)/i.exec(path);
  if (outside) {
    throw new UsageError(
      `${raw.trim()} is not under /api/v1: svc-dl api calls only routes of {base_url}/api/v1`,
      { code: "invalid_api_path" },
    );
  }
  return path;
}

/**
 * `svc-dl api PATH [--paginate]` (cli-contract): an authenticated GET of
 * `{base_url}/api/v1/PATH` that prints the JSON body to stdout (pretty-printed, content as
 * received), with the error model, retries and pacing of every command. `--paginate` follows
 * `pagination.next_cursor` and prints one merged `data` array (a response that is not a list,
 * such as `me`, is printed whole). Routes under `catalog/` are public in the spec: the API key is sent
 * when one is configured (so `catalog:read` applies), else the call is made without a key.
 * Throws UsageError (exit 2) for a bad path or one that leaves `/api/v1`, and the API's errors.
 */
export async function runApi(session: Session, rawPath: string, opts: ApiOptions): Promise<void> {
  const { url: base } = await session.baseUrl();
  const route = routeOf(rawPath, base);
  const apiRoot = `${base.href.replace(/\/+$/, "")}/api/v1/`;
  const url = new URL(`${apiRoot}${route}`);
  if (!url.href.startsWith(apiRoot) || url.origin !== base.origin) {
    throw new UsageError(`${rawPath} leaves /api/v1`, {
      code: "invalid_api_path",
    });
  }
  const catalog = /^catalog(\/|\?|$)/.test(route);
  let authenticate = true;
  if (catalog) {
    try {
      await session.apiKey();
    } catch (err) {
      if (!(err instanceof SvcError && err.code === "no_api_key")) throw err;
      authenticate = false;
      session.reporter.verbose("no API key configured: calling the public catalog without one");
    }
  }
  const client = await session.http(authenticate ? {} : { needsKey: false });
  if (opts.paginate) {
    const result = await paginateAny(client, url, { authenticate });
    session.printJson("items" in result ? result.items : result.body);
    return;
  }
  const { body } = await client.getJson(url, z.unknown(), { authenticate });
  session.printJson(body);
}
