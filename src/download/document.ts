import type { GetJsonDocument } from "../documents/parts.js";
import type { GetManyResult } from "../documents/runs.js";
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

/**
 * The several-slug `--json` document (cli-contract "JSON documents") without its run end:
 * downloaded, failed and deferred items, and the counters (`deferred` with `--max-duration`);
 * declared by its schema, src/documents/runs.ts.
 */
export type GetManyDocument = GetManyResult;

/**
 * The several-slug document over `items` (cli-contract "JSON documents"; also a `--report` of
 * one slug, and the library's `report` of one download), for a complete run and one stopped
 * part-way alike:
 * `up_to_date` counts `up-to-date` and `adopted`, `failed` and (with `deadline`) `deferred`
 * their own status, `downloaded` every other.
 */
export function getManyDocument(
  items: GetManyDocument["items"],
  facts: { deadline: boolean },
): GetManyDocument {
  const summary: GetManyDocument["summary"] = { downloaded: 0, up_to_date: 0, failed: 0 };
  if (facts.deadline) summary.deferred = 0;
  for (const { status } of items) {
    if (status === "up-to-date" || status === "adopted") summary.up_to_date += 1;
    else if (status === "failed") summary.failed += 1;
    else if (status === "deferred") summary.deferred = (summary.deferred ?? 0) + 1;
    else summary.downloaded += 1;
  }
  return { items, summary };
}
