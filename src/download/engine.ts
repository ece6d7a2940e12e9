import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { HttpClient, HttpResponse, RequestSpec } from "../api/http.js";
import { headerValue } from "../api/http.js";
import { InterruptedError } from "../errors/interrupted-error.js";
import { NetworkError } from "../errors/network-error.js";
import { ResponseError } from "../errors/response-error.js";
import type { SvcError } from "../errors/svc-error.js";
import type { FileOutcome, FileProgress } from "../io/progress.js";
import { lstatIfExists } from "../io/safe-fs.js";
import { parseContentLength, parseContentRange } from "./content-range.js";
import { corruptDownload } from "./errors.js";
import { checkFileFormat, type FileFormat } from "./format.js";
import { directRequest } from "./http1.js";
import { checkRecordedFile, regularFileMtime, restampRecord } from "./local-file.js";
import { acquireDirLock, type DirLock } from "./lock.js";
import { nameFromContentDisposition } from "./names.js";
import { chooseDestination, recordOf, settleDestination } from "./ownership.js";
import {
  type PartialMeta,
  type PartialPaths,
  partialPaths,
  preparePartialData,
  readPartial,
  removePartial,
  setFinalFileMode,
  writePartialMeta,
} from "./partial.js";
import { dropBody, PumpError, pumpToWriter } from "./pump.js";
import {
  findRecorded,
  type ItemRef,
  readState,
  type StateItem,
  sameItem,
  writeState,
} from "./state.js";
import { fsError, openHashingWriter } from "./writer.js";

/**
 * The request that yields the file: the API route (or a pack record's `downloads` URL), or the
 * legacy `POST /api/download`. It is sent again whenever a fresh signed CDN URL is needed.
 */
export interface DownloadSource {
  url: URL;
  method?: "GET" | "POST";
  /** Request body (legacy JSON); never re-sent to a redirect target. */
  body?: string;
  /** Extra request headers (lower-case), e.g. `content-type`. */
  headers?: Record<string, string>;
  /** Send the API key (service origin only). Default true; false for legacy. */
  authenticate?: boolean;
}

/** Options of {@link downloadItem}. */
export interface DownloadItemOptions extends ItemRef {
  source: DownloadSource;
  /** Output directory, absolute; created if missing. Partial data and state go to `<dir>/.svc-dl/`. */
  dir: string;
  /** Exact final file name in `dir` (from `-o FILE`); default the server's name. */
  fileName?: string;
  /** Overwrite a destination that is not recorded as ours, and re-download ours unconditionally. */
  force?: boolean;
  /** Re-hash a recorded file even when its size and mtime match the record (`--checksum`). */
  checksum?: boolean;
  /** Lock wait in seconds when this call locks `dir` itself (`--wait-lock`); default 0. */
  waitLock?: number;
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

/** Most restarts from zero in one call before giving up (a server that keeps answering bad ranges). */
const MAX_RESTARTS = 3;
/**
 * Bytes a failed transfer must have gained for its failure to be forgiven (the retry count
 * reset): a server that keeps sending a few bytes and closing still ends after 5 tries.
 */
export const MIN_PROGRESS_BYTES = 64 * 1024;
/** Most fresh CDN URLs asked for in a row without progress. */
const MAX_CDN_REFRESHES = 5;

/**
 * Downloads one item into `dir` (cli-contract "Downloads", "Retries and rate limits"; issue 4).
 *
 * - Partial data streams to `<dir>/.svc-dl/<kind>-<edition>-<slug>.part` with its ETag and size
 *   in a `.part.json`; the final name appears only by atomic rename once the size and format
 *   are checked. SHA-256 is computed while writing (over the existing part first on resume).
 *   The result is recorded in `<dir>/.svc-dl/state.json`.
 * - Resume: `Range: bytes=N-` + `If-Range: <ETag>`; a 206 must start at N with the recorded
 *   total; a 200 restarts from zero; 416 `bytes *\/N` finishes the part, other 416s restart.
 * - Dropped connections, 5xx and 429 are retried within one retry budget, resuming from the
 *   bytes written (failures are forgiven whenever bytes were gained). A 403/410 from a non-service
 *   origin (an expired signed CDN URL) re-sends `source` for a fresh URL and resumes.
 * - A recorded, complete file is re-validated with `If-None-Match` (304, or 200 with the same
 *   ETag → `up-to-date`, body not read). A destination not recorded as ours needs `force`.
 *
 * Throws: UsageError never; FileSystemError `file_exists` / `locked` / `no_space` (exit 8);
 * SvcError `corrupt_download` (exit 7, partial discarded); ApiError from the service;
 * NetworkError after retries (partial kept); InterruptedError when the client's signal aborts
 * (partial kept, lock released, progress stopped).
 */
export async function downloadItem(
  client: HttpClient,
  opts: DownloadItemOptions,
): Promise<DownloadResult> {
  const lock: DirLock | undefined =
    opts.lock === false
      ? undefined
      : await acquireDirLock(opts.dir, {
          waitSeconds: opts.waitLock ?? 0,
          ...(client.signal ? { signal: client.signal } : {}),
        });
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

/** The InterruptedError behind an aborted signal. */
export function interruptedReason(signal: AbortSignal): InterruptedError {
  const reason: unknown = signal.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError("SIGINT");
}

async function runDownload(client: HttpClient, opts: DownloadItemOptions): Promise<DownloadResult> {
  const item: ItemRef = { kind: opts.kind, slug: opts.slug, edition: opts.edition };
  const { dir } = opts;
  const paths = partialPaths(dir, item);
  const notice = opts.onNotice ?? (() => undefined);
  const state = readState(dir);
  const fixedName = opts.fileName;
  const force = opts.force === true;
  // [state] one name, one item; untrusted destinations (src/download/ownership.ts)
  const destination = (server: string | undefined): string =>
    chooseDestination(dir, item, { fixed: fixedName, server }, force);
  if (fixedName !== undefined) destination(undefined);
  const recorded = fixedName !== undefined ? state.items[fixedName] : findRecorded(state, item);
  const ours = recorded && sameItem(recorded, item) ? recorded : undefined;
  // [state] repair: size+mtime, else a re-hash, decide "intact" (src/download/local-file.ts)
  const local = ours
    ? await checkRecordedFile(dir, ours, opts.checksum === true, client.signal)
    : undefined;
  if (ours && local?.restamp !== undefined) await restampRecord(dir, ours.file, local.restamp);
  const repairing = local?.verdict === "changed";
  let conditional: StateItem | undefined =
    ours && !opts.force && ours.etag && local?.verdict === "intact" ? ours : undefined;
  if (conditional && opts.revalidate === false) {
    return finishUpToDate(opts, conditional);
  }

  const retries = client.newRetryBudget();
  let restarts = 0;
  let cdnRefreshes = 0;
  /** Start offset of the first transfer of the current version (undefined after a restart). */
  let chainStart: number | undefined;

  for (;;) {
    let partial = readPartial(paths, item);
    if (partial && !isStrongEtag(partial.meta.etag)) {
      removePartial(paths);
      partial = undefined;
    }
    const offset = partial?.bytes ?? 0;
    const headers: Record<string, string> = { ...opts.source.headers };
    if (partial) {
      headers.range = `bytes=${offset}-`;
      headers["if-range"] = partial.meta.etag;
      conditional = undefined;
    } else if (conditional?.etag) {
      headers["if-none-match"] = conditional.etag;
    }
    const spec: RequestSpec = {
      url: opts.source.url,
      method: opts.source.method ?? "GET",
      headers,
      budget: "download",
      transport: directRequest,
      ...(opts.source.body !== undefined ? { body: opts.source.body } : {}),
      ...(opts.source.authenticate === false ? { authenticate: false } : {}),
    };
    let res: HttpResponse;
    try {
      res = await client.send(spec);
    } catch (err) {
      await retries.wait(client.failureFromError(err), client.signal);
      continue;
    }
    const etag = headerValue(res.headers, "etag") ?? null;

    // Unchanged: 304, or 200 with the stored ETag (body not read).
    if (conditional && (res.status === 304 || (res.status === 200 && etag === conditional.etag))) {
      dropBody(res.body);
      return finishUpToDate(opts, conditional);
    }

    if (res.status === 416) {
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      // Without partial data there was no Range: the service's own error (its body is read).
      if (!partial) throw await errorFor(client, opts, res);
      dropBody(res.body);
      if (
        partial &&
        range?.kind === "unsatisfied" &&
        range.total === offset &&
        range.total === partial.meta.total
      ) {
        // The partial file already holds every byte: check and finish it.
        const name = destination(partial.meta.file);
        chainStart ??= offset;
        const writer = openHashingWriter(paths.data, offset);
        writer.close();
        opts.progress.start({ name, total: offset, offset, ...label(opts) });
        return await finishComplete(opts, paths, {
          name,
          bytes: writer.bytes,
          sha256: writer.digest(),
          etag: partial.meta.etag,
          resumedFrom: chainStart,
          response: res,
          repaired: repairing,
        });
      }
      notice(`the service refused to resume ${item.slug} (HTTP 416); starting over`);
      removePartial(paths);
      chainStart = undefined;
      if (++restarts > MAX_RESTARTS) throw tooManyRestarts(res);
      continue;
    }

    if ((res.status === 403 || res.status === 410) && res.url.origin !== client.serviceOrigin) {
      if (++cdnRefreshes > MAX_CDN_REFRESHES) throw await errorFor(client, opts, res);
      dropBody(res.body);
      notice(
        `download link expired (HTTP ${res.status} from ${res.url.host}); asking the service for a fresh one`,
      );
      continue;
    }

    if (res.status !== 200 && res.status !== 206) {
      if (res.status === 429 || res.status >= 500) {
        const outcome = await client.failureFromResponse(res);
        if ("kind" in outcome) {
          await retries.wait(outcome, client.signal);
          continue;
        }
        throw outcome;
      }
      if (res.status < 300 || res.status === 304) {
        dropBody(res.body);
        throw new ResponseError(`unexpected HTTP ${res.status} for a download`, {
          httpStatus: res.status,
          requestId: res.requestId,
        });
      }
      throw await errorFor(client, opts, res);
    }

    // 200 or 206: decide where the bytes go.
    let start = 0;
    let total: number | undefined;
    if (res.status === 206) {
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      const valid =
        partial !== undefined &&
        range?.kind === "range" &&
        range.start === offset &&
        range.total === partial.meta.total &&
        (etag === null || etag === partial.meta.etag);
      if (!valid || !partial) {
        dropBody(res.body);
        notice(`the service answered an unusable range for ${item.slug}; starting over`);
        removePartial(paths);
        chainStart = undefined;
        if (++restarts > MAX_RESTARTS) throw tooManyRestarts(res);
        continue;
      }
      start = offset;
      total = partial.meta.total;
    } else {
      if (partial) {
        notice(`${item.slug} changed on the service (or the range was ignored); starting over`);
        removePartial(paths);
        chainStart = undefined;
      }
      total = parseContentLength(headerValue(res.headers, "content-length"));
    }

    let name: string;
    try {
      name = destination(
        nameFromContentDisposition(headerValue(res.headers, "content-disposition")) ??
          partial?.meta.file,
      );
    } catch (err) {
      dropBody(res.body);
      throw err;
    }

    if (start === 0) {
      const meta: PartialMeta = {
        version: 1,
        ...item,
        etag: etag ?? "",
        total: total ?? -1,
        file: name,
        started_at: new Date().toISOString(),
      };
      try {
        writePartialMeta(paths, meta);
      } catch (err) {
        dropBody(res.body);
        throw err;
      }
    }
    let writer: ReturnType<typeof openHashingWriter>;
    try {
      preparePartialData(paths, start); // [state] never write through a link at the .part path
      writer = openHashingWriter(paths.data, start);
    } catch (err) {
      dropBody(res.body);
      throw err;
    }
    if (writer.bytes !== start) {
      // The part file changed under us: start over.
      writer.close();
      dropBody(res.body);
      removePartial(paths);
      chainStart = undefined;
      if (++restarts > MAX_RESTARTS) throw tooManyRestarts(res);
      continue;
    }
    chainStart ??= start;
    opts.progress.start({ name, total, offset: start, ...label(opts) });
    try {
      await pumpToWriter(res.body, writer, {
        limit: total,
        onBytes: (n) => opts.progress.advance(n),
      });
    } catch (err) {
      const gained = writer.bytes - start >= MIN_PROGRESS_BYTES;
      try {
        writer.close();
      } catch {
        // the first error is the one to report
      }
      if (client.signal?.aborted) throw interruptedReason(client.signal);
      if (err instanceof PumpError && err.reason === "overflow") {
        removePartial(paths);
        throw corruptDownload(err.message, { httpStatus: res.status, requestId: res.requestId });
      }
      if (err instanceof PumpError) {
        // Only kept progress is forgiven: bytes thrown away (no size or no strong ETag to
        // resume against) would otherwise restart forever against a server that always fails.
        if (gained && total !== undefined && isStrongEtag(etag)) {
          retries.resetFailures();
          cdnRefreshes = 0;
        }
        if (total === undefined || !isStrongEtag(etag)) {
          // Nothing to resume against safely: the next try starts over.
          removePartial(paths);
          chainStart = undefined;
        }
        await retries.wait(
          {
            kind: "network",
            error: new NetworkError(err.message, {
              requestId: res.requestId,
              cause: err,
              hint: "Run the same command again to resume from the bytes already saved.",
            }),
          },
          client.signal,
        );
        continue;
      }
      throw err;
    }
    writer.close();
    const bytes = writer.bytes;
    if (total !== undefined && bytes < total) {
      // The body ended cleanly but short: resume like after a dropped connection.
      if (bytes - start >= MIN_PROGRESS_BYTES && isStrongEtag(etag)) retries.resetFailures();
      await retries.wait(
        {
          kind: "network",
          error: new NetworkError(`the download ended after ${bytes} of ${total} bytes`, {
            requestId: res.requestId,
            hint: "Run the same command again to resume from the bytes already saved.",
          }),
        },
        client.signal,
      );
      if (!isStrongEtag(etag)) removePartial(paths);
      continue;
    }
    return await finishComplete(opts, paths, {
      name,
      bytes,
      sha256: writer.digest(),
      etag,
      resumedFrom: chainStart,
      response: res,
      repaired: repairing,
    });
  }
}

function label(opts: DownloadItemOptions): { label?: string } {
  return opts.progressLabel !== undefined ? { label: opts.progressLabel } : {};
}

/** Format check, atomic rename into place, state record. */
async function finishComplete(
  opts: DownloadItemOptions,
  paths: PartialPaths,
  done: {
    name: string;
    bytes: number;
    sha256: string;
    etag: string | null;
    resumedFrom: number;
    response: HttpResponse;
    /** The item's recorded file had changed: the status is `repaired`. */
    repaired: boolean;
  },
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
  // [state] adoption: an unrecorded identical file is recorded and left untouched
  const action = await settleDestination(
    opts.dir,
    done.name,
    state,
    item,
    done,
    opts.force === true,
  );
  const mtimeMs = regularFileMtime(action === "adopt" ? finalPath : paths.data);
  const facts = { ...done, file: done.name, mtimeMs };
  state.items[done.name] = recordOf(state, item, facts, opts.fileName !== undefined);
  if (action === "adopt") return await finishAdopted(opts, paths, state, done);
  // A new file is recorded before it appears: a run killed between rename and record would
  // leave a complete file the next run refuses as not ours (file_exists). Killed before the
  // rename, the record names a missing file and the complete part finishes via 416. A file
  // being replaced is recorded after, so an old record never vouches for new bytes.
  setFinalFileMode(paths); // [state] 0600 only while in .svc-dl/
  const replacing = lstatIfExists(finalPath) !== undefined;
  if (!replacing) await writeState(opts.dir, state);
  try {
    renameSync(paths.data, finalPath);
  } catch (err) {
    throw fsError(`cannot move the download to ${finalPath}`, err);
  }
  rmSync(paths.meta, { force: true });
  if (replacing) await writeState(opts.dir, state);
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

/** [state] Records an adopted file, drops the partial copy, reports `adopted`. */
async function finishAdopted(
  opts: DownloadItemOptions,
  paths: PartialPaths,
  state: Parameters<typeof writeState>[1],
  done: { name: string; bytes: number; sha256: string; etag: string | null },
): Promise<DownloadResult> {
  await writeState(opts.dir, state);
  removePartial(paths);
  opts.progress.done({ name: done.name, bytes: done.bytes, resumedFrom: 0, outcome: "adopted" });
  return {
    kind: opts.kind,
    slug: opts.slug,
    edition: opts.edition,
    path: join(opts.dir, done.name),
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
    path: join(opts.dir, recorded.file),
    file: recorded.file,
    bytes: recorded.size,
    sha256: recorded.sha256,
    etag: recorded.etag,
    status: "up-to-date",
    resumedFrom: 0,
  };
}

async function errorFor(
  client: HttpClient,
  opts: DownloadItemOptions,
  res: HttpResponse,
): Promise<SvcError> {
  return opts.errorFromResponse ? opts.errorFromResponse(res) : client.errorFromResponse(res);
}

function tooManyRestarts(res: HttpResponse): ResponseError {
  return new ResponseError(
    `the service kept answering resume requests with unusable ranges (${MAX_RESTARTS} restarts)`,
    { httpStatus: res.status, requestId: res.requestId },
  );
}

/** A strong ETag (`"…"`, not `W/"…"`): the only validator safe for `If-Range`. */
export function isStrongEtag(etag: string | null | undefined): etag is string {
  return typeof etag === "string" && /^"[^"]*"$/.test(etag.trim());
}
