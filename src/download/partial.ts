import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ItemRef, stateDirOf } from "./state.js";
import { fsError } from "./writer.js";

/**
 * Bookkeeping of an unfinished download, stored next to its data in `<dir>/.svc-dl/`:
 * the strong ETag the bytes came with (sent back as `If-Range`) and the file's full size in
 * bytes (a 206 must announce the same total). Without both, partial data is never resumed.
 */
export interface PartialMeta extends ItemRef {
  version: 1;
  etag: string;
  /** Full size in bytes; -1 when the response had no Content-Length (chunked) and no range total yet. */
  total: number;
  /** The final file name chosen for it, when known (informational). */
  file?: string;
  started_at: string;
}

/** Paths of the partial data file and its metadata for one item in `dir`. */
export interface PartialPaths {
  data: string;
  meta: string;
}

/**
 * Where the partial data of `item` lives: `<dir>/.svc-dl/<kind>-<edition>-<slug>.part` (+
 * `.json`), the slug percent-encoded (hashed when long) so any slug is one safe file name.
 */
export function partialPaths(dir: string, item: ItemRef): PartialPaths {
  let slug = encodeURIComponent(item.slug).replace(/\*/g, "%2A");
  if (slug.length > 120) {
    slug = `${slug.slice(0, 60)}~${createHash("sha256").update(item.slug).digest("hex").slice(0, 16)}`;
  }
  const base = join(stateDirOf(dir), `${item.kind}-${item.edition ?? "file"}-${slug}.part`);
  return { data: base, meta: `${base}.json` };
}

/**
 * The resumable partial data of `item`: its metadata and the bytes on disk. Returns undefined
 * (and removes leftovers) when there is no data, no valid metadata, or more bytes than the
 * recorded total.
 */
export function readPartial(
  paths: PartialPaths,
  item: ItemRef,
): { meta: PartialMeta; bytes: number } | undefined {
  let bytes: number;
  try {
    bytes = statSync(paths.data).size;
  } catch {
    removePartial(paths);
    return undefined;
  }
  let meta: PartialMeta | undefined;
  try {
    const raw = JSON.parse(readFileSync(paths.meta, "utf8")) as Partial<PartialMeta>;
    if (
      raw.version === 1 &&
      typeof raw.etag === "string" &&
      typeof raw.total === "number" &&
      raw.kind === item.kind &&
      raw.slug === item.slug &&
      (raw.edition ?? null) === item.edition
    ) {
      meta = raw as PartialMeta;
    }
  } catch {
    meta = undefined;
  }
  if (!meta || (meta.total >= 0 && bytes > meta.total) || bytes === 0) {
    removePartial(paths);
    return undefined;
  }
  return { meta, bytes };
}

/**
 * Writes the metadata of a partial download atomically (temp file + rename), synchronously so
 * that no response data can arrive unobserved meanwhile. Throws FileSystemError (exit 8).
 */
export function writePartialMeta(paths: PartialPaths, meta: PartialMeta): void {
  const tmp = `${paths.meta}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(meta)}\n`);
    renameSync(tmp, paths.meta);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw fsError(`cannot write ${paths.meta}`, err);
  }
}

/** Removes partial data and its metadata; never throws. */
export function removePartial(paths: PartialPaths): void {
  rmSync(paths.data, { force: true });
  rmSync(paths.meta, { force: true });
}
