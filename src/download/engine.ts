import { rmSync } from "node:fs";
import { fsError } from "../errors/fs-error.js";
import { interruptedBy } from "../errors/interrupted-error.js";
import { SvcError } from "../errors/svc-error.js";
import { damageUnlessVouched, describeDamage, formatOfKind } from "../integrity/check-file.js";
import { durableRename } from "../io/durable.js";
import type { FileOutcome } from "../io/progress.js";
import { checkRecordedFile, regularFileMtime } from "../outdir/local-file.js";
import { type PartialPaths, removePartial, setFinalFileMode } from "../outdir/partial.js";
import { type ItemRef, type StateItem, sameItem } from "../outdir/state.js";
import { corruptDownload } from "./errors.js";
import { type FetchBodyOptions, fetchBody } from "./fetch-body.js";
import type { DownloadItemOptions, DownloadResult } from "./item-types.js";
import { type CompletePart, PartFileSink } from "./part-file-sink.js";
import type { Transport } from "./transport.js";

export { type DownloadSource, MIN_PROGRESS_BYTES } from "./fetch-body.js";
export type { DownloadItemOptions, DownloadResult } from "./item-types.js";
export { isStrongEtag } from "./sink.js";

/**
 * The {@link FetchBodyOptions} of one item's download: its source, the run's signal, its error
 * builder and notices, labelled by its slug (the `-o DIR` and `-o -` paths alike).
 */
export function fetchOptionsOf(
  item: Omit<FetchBodyOptions, "label"> & { slug: string },
): FetchBodyOptions {
  return {
    source: item.source,
    signal: item.signal,
    errorFromResponse: item.errorFromResponse,
    onNotice: item.onNotice,
    label: item.slug,
  };
}

/**
 * Downloads one item into the output directory `opts.out` (cli-contract "Downloads", "Retries and rate limits").
 *
 * - Decision before any request ({@link recordedUpToDate}): a recorded, complete file is
 *   re-validated with `If-None-Match` (304, or 200 with the same ETag → `up-to-date`, body not
 *   read), or trusted without a request when `revalidate` is false.
 * - The transfer is {@link fetchBody} (Range/If-Range resume, 206/416 checks, restarts, expired
 *   link refresh, one retry budget) into a {@link PartFileSink}: partial data in
 *   `<dir>/.svc-dl/`, SHA-256 computed while writing.
 * - Decision after a complete body ({@link commitDownload}): size and format checked, atomic
 *   rename into place, state record.
 *
 * Throws: FileSystemError `file_exists` / `no_space` (exit 8); SvcError `corrupt_download`
 * (exit 7, partial discarded); ApiError from the service; NetworkError after retries (partial
 * kept); InterruptedError once `opts.signal` aborts (partial kept, progress stopped).
 */
export async function downloadItem(
  transport: Transport,
  opts: DownloadItemOptions,
): Promise<DownloadResult> {
  try {
    return await runDownload(transport, opts);
  } catch (err) {
    // also a re-hash or the commit stopped by the abort (fetchBody maps its own)
    if (opts.signal?.aborted) throw interruptedBy(opts.signal);
    // what the caller knows about the item (a listed pack) goes to the hint of a refusal
    throw err instanceof SvcError && opts.source.facts ? err.withDetail(opts.source.facts) : err;
  } finally {
    opts.progress.stop();
  }
}

/**
 * The item's own record in `dir` and what its file looks like now (cli-contract "Downloads": a
 * recorded file is up to date only when its size and mtime match the record, or its SHA-256 does
 * after a re-hash, always with `checksum`). A re-hash that finds the file intact restamps the
 * record's mtime. `conditional` is set when the file may be revalidated (or trusted) instead of
 * fetched; `repairing` when the recorded file changed and a new download repairs it.
 */
export async function recordedUpToDate(
  opts: DownloadItemOptions,
): Promise<{ conditional: StateItem | undefined; repairing: boolean }> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const { out } = opts;
  const recorded = opts.fileName !== undefined ? out.recordedAt(opts.fileName) : out.recorded(item);
  const ours = recorded && sameItem(recorded, item) ? recorded : undefined;
  if (!ours) return { conditional: undefined, repairing: false };
  const local = await checkRecordedFile(out.dir, ours, opts.checksum === true, opts.signal);
  if (local.restamp !== undefined) out.restamp(ours.file, local.restamp);
  const intact = local.verdict === "intact";
  return {
    conditional: !opts.force && ours.etag && intact ? ours : undefined,
    repairing: local.verdict === "changed",
  };
}

async function runDownload(
  transport: Transport,
  opts: DownloadItemOptions,
): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const { out } = opts;
  const force = opts.force === true;
  // One name, one item; untrusted destinations (src/outdir/ownership.ts).
  const destination = (server: string | undefined): string =>
    out.chooseName(item, { fixed: opts.fileName, server }, force);
  if (opts.fileName !== undefined) destination(undefined);
  const { conditional, repairing } = await recordedUpToDate(opts);
  if (conditional && opts.revalidate === false) return finishUpToDate(opts, conditional);
  try {
    return await fetchAndCommit(transport, opts, conditional, repairing, destination);
  } catch (err) {
    if (!isCorrupt(err) || opts.signal?.aborted) throw err;
    // cli-contract "Integrity": repeated once from zero (the damaged part is already discarded)
    opts.onNotice?.(
      `${opts.slug}: ${err.message.replace(/; nothing was saved$/, "")}; downloading it again from the start`,
    );
    removePartial(out.partial(item));
    return await fetchAndCommit(transport, opts, conditional, repairing, destination);
  }
}

function isCorrupt(err: unknown): err is Error {
  return err instanceof Error && (err as { code?: unknown }).code === "corrupt_download";
}

async function fetchAndCommit(
  transport: Transport,
  opts: DownloadItemOptions,
  conditional: StateItem | undefined,
  repairing: boolean,
  destination: (server: string | undefined) => string,
): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const sink = new PartFileSink({
    dir: opts.out.dir,
    item,
    conditionalEtag: conditional?.etag ?? undefined,
    progress: opts.progress,
    progressLabel: opts.progressLabel,
    chooseName: destination,
  });
  const outcome = await fetchBody<CompletePart | "unchanged">(
    transport,
    fetchOptionsOf(opts),
    sink,
  );
  if (outcome === "unchanged") {
    if (!conditional) throw new Error("unchanged without a recorded file");
    return finishUpToDate(opts, conditional);
  }
  return await commitDownload(opts, sink.paths, { ...outcome, repaired: repairing });
}

/**
 * After a complete body: the format checks of cli-contract "Integrity" on the part file read
 * back (`findDamage`: every ZIP entry's CRC-32 and sizes, GLB structure; a failure discards
 * the part: exit 7 `corrupt_download` naming the entry and offset), unless the ZIP check that
 * ran while the file was read back found it `sound` (`done.formatVerdict`), atomic rename into
 * place, state record.
 */
export async function commitDownload(
  opts: DownloadItemOptions,
  paths: PartialPaths,
  done: CompletePart & { repaired?: boolean },
): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  let damage: Awaited<ReturnType<typeof damageUnlessVouched>>;
  try {
    // checked while read back: only an unsure (or missing) verdict reads the file again
    damage = await damageUnlessVouched(
      paths.data,
      formatOfKind(opts.kind),
      done.formatVerdict,
      opts.signal,
    );
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw fsError(`cannot read ${paths.data}`, err);
  }
  if (damage) {
    removePartial(paths);
    throw corruptDownload(describeDamage(damage), {
      httpStatus: done.response.status,
      requestId: done.response.requestId,
    });
  }
  const { out } = opts;
  const finalPath = out.pathOf(done.name);
  // Adoption: an unrecorded file with the served bytes is recorded and left untouched.
  const action = await out.settle(done.name, item, done, opts.force === true);
  const mtimeMs = regularFileMtime(action === "adopt" ? finalPath : paths.data);
  const facts = { ...done, file: done.name, mtimeMs };
  const rec = out.recordFor(item, facts, opts.fileName !== undefined);
  if (action === "adopt") return await finishAdopted(opts, paths, rec, done);
  // Killed before the rename, the record names a missing file and the complete part finishes
  // via 416 (the ordering rule itself lives in OutputDir.record).
  setFinalFileMode(paths); // 0600 only while in .svc-dl/
  await out.record(rec, () => {
    try {
      // the sink flushed the part before it reported it complete (PartFileSink)
      durableRename(paths.data, finalPath, { fileSynced: true });
    } catch (err) {
      throw fsError(`cannot move the download to ${finalPath}`, err);
    }
  });
  rmSync(paths.meta, { force: true });
  const status: FileOutcome = done.repaired
    ? "repaired"
    : done.resumedFrom > 0
      ? "resumed"
      : "downloaded";
  opts.progress.done({
    name: done.name,
    bytes: done.bytes,
    resumedFrom: done.resumedFrom,
    outcome: status,
  });
  return {
    ...item,
    path: finalPath,
    file: done.name,
    bytes: done.bytes,
    sha256: done.sha256,
    etag: done.etag,
    status,
    resumedFrom: done.resumedFrom,
  };
}

/** Records an adopted file, drops the partial copy, reports `adopted`. */
async function finishAdopted(
  opts: DownloadItemOptions,
  paths: PartialPaths,
  rec: StateItem,
  done: { name: string; bytes: number; sha256: string; etag: string | null },
): Promise<DownloadResult> {
  await opts.out.record(rec);
  await opts.out.flush();
  removePartial(paths);
  opts.progress.done({ name: done.name, bytes: done.bytes, resumedFrom: 0, outcome: "adopted" });
  return {
    kind: opts.kind,
    slug: opts.slug,
    edition: opts.edition,
    path: opts.out.pathOf(done.name),
    file: done.name,
    bytes: done.bytes,
    sha256: done.sha256,
    etag: done.etag,
    status: "adopted",
    resumedFrom: 0,
  };
}

function finishUpToDate(opts: DownloadItemOptions, recorded: StateItem): DownloadResult {
  opts.progress.done({
    name: recorded.file,
    bytes: recorded.size,
    resumedFrom: 0,
    outcome: "up-to-date",
  });
  return {
    kind: opts.kind,
    slug: opts.slug,
    edition: opts.edition,
    path: opts.out.pathOf(recorded.file),
    file: recorded.file,
    bytes: recorded.size,
    sha256: recorded.sha256,
    etag: recorded.etag,
    status: "up-to-date",
    resumedFrom: 0,
  };
}
