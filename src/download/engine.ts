import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SvcError } from "../errors/svc-error.js";
import type { HttpClient, HttpResponse } from "../http/client.js";
import type { FileOutcome, FileProgress } from "../io/progress.js";
import { corruptDownload, fileExists } from "./errors.js";
import { type DownloadSource, fetchBody, interruptedReason } from "./fetch-body.js";
import { checkFileFormat, type FileFormat } from "./format.js";
import { acquireDirLock, type DirLock } from "./lock.js";
import { type CompletePart, PartFileSink } from "./part-file-sink.js";
import { type PartialPaths, removePartial } from "./partial.js";
import {
  findRecorded,
  type ItemRef,
  isRecordedComplete,
  readState,
  type StateItem,
  sameItem,
  writeState,
} from "./state.js";
import { fsError } from "./writer.js";

export {
  type DownloadSource,
  interruptedReason,
  isStrongEtag,
  MIN_PROGRESS_BYTES,
} from "./fetch-body.js";
/** Options of {@link downloadItem}. */
export interface DownloadItemOptions extends ItemRef {
  source: DownloadSource;
  /** Output directory, absolute; created if missing. Partial data and state go to `<dir>/.svc-dl/`. */
  dir: string;
  /** Exact final file name in `dir` (from `-o FILE`); default the server's name. */
  fileName?: string;
  /** Overwrite a destination that is not recorded as ours, and re-download ours unconditionally. */
  force?: boolean;
  /**
   * For a recorded, complete file: true (default) re-validates it with `If-None-Match`; false
   * trusts the state file and returns `up-to-date` without any request (`packs sync`).
   */
  revalidate?: boolean;
  progress: FileProgress;
  /** Prefix for progress lines, e.g. `pack 3/12`. */
  progressLabel?: string;
  /** Lock handling: omitted → lock `dir` for this call; `false` → the caller holds the lock. */
  lock?: false;
  /** Builds the error of a non-retryable failure response (legacy denials); default the client's. */
  errorFromResponse?: (res: HttpResponse) => Promise<SvcError>;
  /** Notices (restart, refresh of an expired URL) for stderr. */
  onNotice?: (line: string) => void;
}

/** What {@link downloadItem} did (cli-contract "JSON documents"). */
export interface DownloadResult extends ItemRef {
  /** Absolute path of the final file. */
  path: string;
  /** Base name of the final file in its directory. */
  file: string;
  /** File size in bytes. */
  bytes: number;
  /** Lower-case hex SHA-256 of the file. */
  sha256: string;
  etag: string | null;
  status: FileOutcome;
  /** Bytes that were already on disk from an earlier run when this one resumed; 0 otherwise. */
  resumedFrom: number;
}

/** Format check for an item: packs are ZIP, assets GLB. */
export function formatOf(kind: ItemRef["kind"]): FileFormat {
  return kind === "pack" ? "zip" : "glb";
}

/**
 * Downloads one item into `dir` (cli-contract "Downloads", "Retries and rate limits").
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
 * Throws: FileSystemError `file_exists` / `locked` / `no_space` (exit 8); SvcError
 * `corrupt_download` (exit 7, partial discarded); ApiError from the service; NetworkError after
 * retries (partial kept); InterruptedError when the client's signal aborts (partial kept, lock
 * released, progress stopped).
 */
export async function downloadItem(
  client: HttpClient,
  opts: DownloadItemOptions,
): Promise<DownloadResult> {
  const lock: DirLock | undefined =
    opts.lock === false ? undefined : await acquireDirLock(opts.dir);
  try {
    return await runDownload(client, opts);
  } catch (err) {
    if (client.signal?.aborted) throw interruptedReason(client.signal);
    throw err;
  } finally {
    opts.progress.stop();
    await lock?.release();
  }
}

/**
 * The recorded file of this item that is complete on disk (size and mtime match its record),
 * i.e. a candidate for "already up to date"; undefined when it must be fetched.
 */
export function recordedUpToDate(opts: DownloadItemOptions): StateItem | undefined {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const state = readState(opts.dir);
  const recorded =
    opts.fileName !== undefined ? state.items[opts.fileName] : findRecorded(state, item);
  const ours = recorded && sameItem(recorded, item) ? recorded : undefined;
  return ours && !opts.force && ours.etag && isRecordedComplete(opts.dir, ours) ? ours : undefined;
}

async function runDownload(client: HttpClient, opts: DownloadItemOptions): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const { dir } = opts;
  const force = opts.force === true;
  if (opts.fileName !== undefined) assertWritable(dir, opts.fileName, readState(dir).items, force);
  const conditional = recordedUpToDate(opts);
  if (conditional && opts.revalidate === false) return finishUpToDate(opts, conditional);
  const sink = new PartFileSink({
    dir,
    item,
    fixedName: opts.fileName,
    conditionalEtag: conditional?.etag ?? undefined,
    progress: opts.progress,
    progressLabel: opts.progressLabel,
    assertWritable: (name) => assertWritable(dir, name, readState(dir).items, force),
  });
  const outcome = await fetchBody<CompletePart | "unchanged">(
    client,
    {
      source: opts.source,
      errorFromResponse: opts.errorFromResponse,
      onNotice: opts.onNotice,
      label: opts.slug,
    },
    sink,
  );
  if (outcome === "unchanged") {
    if (!conditional) throw new Error("unchanged without a recorded file");
    return finishUpToDate(opts, conditional);
  }
  return await commitDownload(opts, sink.paths, outcome);
}

/**
 * Checks that `name` may be written in `dir`: refuses an existing directory, and an existing
 * file the state does not record unless `force`. Throws FileSystemError `file_exists` (exit 8).
 */
function assertWritable(
  dir: string,
  name: string,
  items: Readonly<Record<string, StateItem>>,
  force: boolean,
): void {
  const path = join(dir, name);
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(path);
  } catch {
    return;
  }
  if (st.isDirectory()) throw fileExists(path, "is a directory");
  if (!force && !items[name]) throw fileExists(path);
}

/**
 * After a complete body: format check (a failure discards the part: exit 7
 * `corrupt_download`), atomic rename into place, state record.
 */
export async function commitDownload(
  opts: DownloadItemOptions,
  paths: PartialPaths,
  done: CompletePart,
): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  let problem: string | undefined;
  try {
    problem = checkFileFormat(paths.data, formatOf(opts.kind));
  } catch (err) {
    throw fsError(`cannot read ${paths.data}`, err);
  }
  if (problem) {
    removePartial(paths);
    throw corruptDownload(problem, {
      httpStatus: done.response.status,
      requestId: done.response.requestId,
    });
  }
  const finalPath = join(opts.dir, done.name);
  const state = readState(opts.dir);
  state.items[done.name] = {
    ...item,
    file: done.name,
    size: done.bytes,
    etag: done.etag,
    sha256: done.sha256,
    completed_at: new Date().toISOString(),
  };
  // A new file is recorded before it appears: a run killed between rename and record would
  // leave a complete file the next run refuses as not ours (file_exists). Killed before the
  // rename, the record names a missing file and the complete part finishes via 416. A file
  // being replaced is recorded after, so an old record never vouches for new bytes.
  const replacing = existsSync(finalPath);
  if (!replacing) await writeState(opts.dir, state);
  try {
    renameSync(paths.data, finalPath);
  } catch (err) {
    throw fsError(`cannot move the download to ${finalPath}`, err);
  }
  rmSync(paths.meta, { force: true });
  if (replacing) await writeState(opts.dir, state);
  const status: FileOutcome = done.resumedFrom > 0 ? "resumed" : "downloaded";
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
    path: join(opts.dir, recorded.file),
    file: recorded.file,
    bytes: recorded.size,
    sha256: recorded.sha256,
    etag: recorded.etag,
    status: "up-to-date",
    resumedFrom: 0,
  };
}
