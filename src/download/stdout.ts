import { createHash } from "node:crypto";
import type { Writable } from "node:stream";
import type { HttpClient, HttpResponse } from "../api/http.js";
import { headerValue } from "../api/http.js";
import { NetworkError } from "../errors/network-error.js";
import { ResponseError } from "../errors/response-error.js";
import { SvcError } from "../errors/svc-error.js";
import type { FileProgress } from "../io/progress.js";
import { parseContentLength, parseContentRange } from "./content-range.js";
import {
  type DownloadResult,
  type DownloadSource,
  formatOf,
  interruptedReason,
  isStrongEtag,
  MIN_PROGRESS_BYTES,
} from "./engine.js";
import { corruptDownload } from "./errors.js";
import { checkLeadingBytes, checkZipTail } from "./format.js";
import { fallbackFileName, nameFromContentDisposition } from "./names.js";
import { dropBody } from "./pump.js";
import type { ItemRef } from "./state.js";

/** Options of {@link downloadToStream}. */
export interface StreamDownloadOptions extends ItemRef {
  source: DownloadSource;
  /** Where the bytes go (stdout for `-o -`). */
  out: Writable;
  progress: FileProgress;
  errorFromResponse?: (res: HttpResponse) => Promise<SvcError>;
  onNotice?: (line: string) => void;
}

/** Bytes kept from the end of a ZIP to find its end-of-central-directory record. */
const ZIP_TAIL = 22 + 0xffff;

/**
 * `-o -` (cli-contract "Downloads"): streams one item to `out` with no partial file, no state
 * and no lock, honouring `out`'s backpressure. Nothing is written until the leading bytes pass
 * the format check (an HTML error page never reaches stdout). A dropped connection is resumed
 * within the run with `Range` + `If-Range` (only a matching 206 continues; anything else fails,
 * since bytes already written cannot be taken back). At the end the size (and for ZIP the
 * end-of-central-directory record) is checked: a failure exits 7 `corrupt_download`.
 * Returns the result with `path` "-". Throws as {@link downloadItem}.
 */
export async function downloadToStream(
  client: HttpClient,
  opts: StreamDownloadOptions,
): Promise<DownloadResult> {
  try {
    return await run(client, opts);
  } catch (err) {
    if (client.signal?.aborted) throw interruptedReason(client.signal);
    throw err;
  } finally {
    opts.progress.stop();
  }
}

async function run(client: HttpClient, opts: StreamDownloadOptions): Promise<DownloadResult> {
  const format = formatOf(opts.kind);
  const hash = createHash("sha256");
  const retries = client.newRetryBudget();
  let written = 0;
  let total: number | undefined;
  let etag: string | null = null;
  let name = fallbackFileName(opts.kind, opts.slug, opts.edition);
  let head: Buffer = Buffer.alloc(0);
  let headChecked = false;
  let tail: Buffer = Buffer.alloc(0);
  let refreshes = 0;
  let lastResponse: HttpResponse | undefined;

  for (;;) {
    const headers: Record<string, string> = { ...opts.source.headers };
    if (written > 0 && etag) {
      headers.range = `bytes=${written}-`;
      headers["if-range"] = etag;
    }
    let res: HttpResponse;
    try {
      res = await client.send({
        url: opts.source.url,
        method: opts.source.method ?? "GET",
        headers,
        budget: "download",
        ...(opts.source.body !== undefined ? { body: opts.source.body } : {}),
        ...(opts.source.authenticate === false ? { authenticate: false } : {}),
      });
    } catch (err) {
      await retries.wait(client.failureFromError(err), client.signal);
      continue;
    }
    lastResponse = res;
    if ((res.status === 403 || res.status === 410) && res.url.origin !== client.serviceOrigin) {
      if (++refreshes <= 5) {
        dropBody(res.body);
        opts.onNotice?.(`download link expired (HTTP ${res.status}); asking for a fresh one`);
        continue;
      }
    }
    if (res.status === 429 || res.status >= 500) {
      const outcome = await client.failureFromResponse(res);
      if ("kind" in outcome) {
        await retries.wait(outcome, client.signal);
        continue;
      }
      throw outcome;
    }
    if (written > 0) {
      const range = parseContentRange(headerValue(res.headers, "content-range"));
      if (
        res.status !== 206 ||
        range?.kind !== "range" ||
        range.start !== written ||
        range.total !== total
      ) {
        dropBody(res.body);
        throw new NetworkError(
          `the connection dropped after ${written} bytes and the service could not resume the same file (HTTP ${res.status}); output is incomplete`,
          { httpStatus: res.status, requestId: res.requestId },
        );
      }
    } else if (res.status === 200) {
      etag = headerValue(res.headers, "etag") ?? null;
      if (!isStrongEtag(etag)) etag = null;
      total = parseContentLength(headerValue(res.headers, "content-length"));
      name = nameFromContentDisposition(headerValue(res.headers, "content-disposition")) ?? name;
      opts.progress.start({ name, total, offset: 0 });
    } else if (res.status >= 200 && res.status < 400) {
      dropBody(res.body);
      throw new ResponseError(`unexpected HTTP ${res.status} for a download`, {
        httpStatus: res.status,
        requestId: res.requestId,
      });
    } else {
      throw opts.errorFromResponse
        ? await opts.errorFromResponse(res)
        : await client.errorFromResponse(res);
    }

    const before = written;
    try {
      for await (const raw of res.body) {
        const chunk = raw as Buffer;
        if (total !== undefined && written + head.length + chunk.length > total) {
          dropBody(res.body);
          throw corruptDownload(`the server sent more than the announced ${total} bytes`, {
            httpStatus: res.status,
            requestId: res.requestId,
          });
        }
        let toWrite = chunk;
        if (!headChecked) {
          head = Buffer.concat([head, chunk]);
          const need = format === "glb" ? 12 : 4;
          if (head.length < need) continue;
          const problem = checkLeadingBytes(format, head, total);
          if (problem) {
            dropBody(res.body);
            throw corruptDownload(problem, { httpStatus: res.status, requestId: res.requestId });
          }
          headChecked = true;
          toWrite = head;
          head = Buffer.alloc(0);
        }
        hash.update(toWrite);
        if (
          format === "zip" &&
          (total === undefined || written + toWrite.length > total - ZIP_TAIL)
        ) {
          tail = keepTail(tail, toWrite);
        }
        written += toWrite.length;
        opts.progress.advance(toWrite.length);
        if (!opts.out.write(toWrite)) await drained(opts.out, client.signal);
      }
    } catch (err) {
      if (err instanceof SvcError) throw err;
      if (client.signal?.aborted) throw interruptedReason(client.signal);
      if (written - before >= MIN_PROGRESS_BYTES) retries.resetFailures();
      if (!etag || total === undefined || written === 0) {
        if (written > 0) {
          throw new NetworkError(
            `the connection dropped after ${written} bytes and the file cannot be resumed safely; output is incomplete`,
            { requestId: res.requestId, cause: err },
          );
        }
        head = Buffer.alloc(0);
      }
      await retries.wait(
        {
          kind: "network",
          error: new NetworkError(
            `connection lost during the download: ${(err as Error).message}`,
            {
              requestId: res.requestId,
              cause: err,
            },
          ),
        },
        client.signal,
      );
      continue;
    }
    if (!headChecked) {
      throw corruptDownload(`only ${head.length} bytes received`, {
        httpStatus: res.status,
        requestId: res.requestId,
      });
    }
    if (total !== undefined && written < total) {
      if (!etag) {
        throw corruptDownload(`the download ended after ${written} of ${total} bytes`, {
          httpStatus: res.status,
          requestId: res.requestId,
        });
      }
      await retries.wait(
        {
          kind: "network",
          error: new NetworkError(`the download ended after ${written} of ${total} bytes`, {
            requestId: res.requestId,
          }),
        },
        client.signal,
      );
      continue;
    }
    break;
  }
  if (format === "zip") {
    const problem = checkZipTail(tail, written);
    if (problem) {
      throw corruptDownload(problem, {
        httpStatus: lastResponse?.status ?? null,
        requestId: lastResponse?.requestId ?? null,
      });
    }
  }
  const sha256 = hash.digest("hex");
  opts.progress.done({ name, bytes: written, resumedFrom: 0, outcome: "downloaded" });
  return {
    kind: opts.kind,
    slug: opts.slug,
    edition: opts.edition,
    path: "-",
    file: name,
    bytes: written,
    sha256,
    etag,
    status: "downloaded",
    resumedFrom: 0,
  };
}

function keepTail(tail: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= ZIP_TAIL) return Buffer.from(chunk.subarray(chunk.length - ZIP_TAIL));
  const joined = Buffer.concat([tail, chunk]);
  return joined.length > ZIP_TAIL ? joined.subarray(joined.length - ZIP_TAIL) : joined;
}

function drained(out: Writable, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      out.off("drain", onDrain);
      out.off("error", onError);
      out.off("close", onDrain);
      signal?.removeEventListener("abort", onAbort);
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onAbort = (): void => {
      cleanup();
      reject(signal?.reason);
    };
    out.once("drain", onDrain);
    out.once("error", onError);
    out.once("close", onDrain);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
