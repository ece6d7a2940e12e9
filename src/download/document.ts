import type { GetJsonDocument } from "../model.js";
import type { DownloadResult } from "./engine.js";

/**
 * The `--json` document of one finished download (cli-contract "Downloads": kind, slug,
 * edition, path, bytes, sha256, etag, status, resumed_from), as `pack get`, `asset get`,
 * `legacy get` print it and the library's `get` returns it.
 */
export function toJsonDocument(result: DownloadResult): GetJsonDocument {
  return {
    kind: result.kind,
    slug: result.slug,
    edition: result.edition,
    path: result.path,
    bytes: result.bytes,
    sha256: result.sha256,
    etag: result.etag,
    status: result.status,
    resumed_from: result.resumedFrom,
  };
}
