import { createHash } from "node:crypto";
import type { Writable } from "node:stream";
import { NetworkError } from "../errors/network-error.js";
import type { SvcError } from "../errors/svc-error.js";
import type { HttpResponse } from "../http/request-types.js";
import { headerValue } from "../http/response-body.js";
import { type CheckedFormat, formatOfKind } from "../integrity/check-file.js";
import type { FileProgress } from "../io/progress.js";
import { fallbackFileName, nameFromContentDisposition } from "../outdir/names.js";
import type { ItemRef } from "../outdir/state.js";
import { type DownloadResult, fetchOptionsOf } from "./engine.js";
import { corruptDownload } from "./errors.js";
import { type DownloadSource, fetchBody } from "./fetch-body.js";
import { checkLeadingBytes, checkZipTail } from "./format.js";
import { type BodyHead, type DownloadSink, isStrongEtag, type ResumePoint } from "./sink.js";
import type { Transport } from "./transport.js";

/** Options of {@link downloadToStream}. */
export interface StreamDownloadOptions extends ItemRef {
  source: DownloadSource;
  /** Where the bytes go (stdout for `-o -`). */
  out: Writable;
  progress: FileProgress;
  errorFromResponse?: (res: HttpResponse) => Promise<SvcError>;
  onNotice?: (line: string) => void;
  /** The run's abort signal: the transfer and a wait for stdout to drain stop at it. */
  signal?: AbortSignal | undefined;
}

/** Bytes kept from the end of a ZIP to find its end-of-central-directory record. */
const ZIP_TAIL = 22 + 0xffff;

/**
 * `-o -` (cli-contract "Downloads"): the same transfer as `-o DIR` ({@link fetchBody}: one
 * transport, retries, Range resume within the run) into a stdout sink: no partial file, no
 * state, no lock, `out`'s backpressure honoured (the socket pauses). Nothing is written until
 * the leading bytes pass the format check (an HTML error page never reaches stdout); the
 * SHA-256 is computed from the copy of the bytes handed to `out`. A resume must continue the same bytes (a 206 of the same
 * ETag); anything else fails, since bytes already written cannot be taken back. At the end the
 * size (and for ZIP the end-of-central-directory record) is checked: a failure exits 7
 * `corrupt_download`. Returns the result with `path` "-". Throws as {@link downloadItem}.
 */
export async function downloadToStream(
  transport: Transport,
  opts: StreamDownloadOptions,
): Promise<DownloadResult> {
  try {
    return await fetchBody(transport, fetchOptionsOf(opts), new StreamSink(opts, opts.signal));
  } finally {
    opts.progress.stop();
  }
}

/** The stdout sink of {@link fetchBody}. */
class StreamSink implements DownloadSink<DownloadResult> {
  readonly #opts: StreamDownloadOptions;
  readonly #signal: AbortSignal | undefined;
  readonly #format: CheckedFormat;
  readonly #hash = createHash("sha256");
  #written = 0;
  #total: number | undefined;
  #etag: string | null = null;
  #name: string;
  #head: Buffer = Buffer.alloc(0);
  #headChecked = false;
  #tail: Buffer = Buffer.alloc(0);
  #res: HttpResponse | undefined;

  constructor(opts: StreamDownloadOptions, signal: AbortSignal | undefined) {
    this.#opts = opts;
    this.#signal = signal;
    this.#format = formatOfKind(opts.kind);
    this.#name = fallbackFileName(opts.kind, opts.slug, opts.edition);
  }

  resumePoint(): ResumePoint | undefined {
    if (this.#written === 0 || !isStrongEtag(this.#etag) || this.#total === undefined) {
      return undefined;
    }
    return { offset: this.#written, etag: this.#etag, total: this.#total };
  }

  unchanged(): never {
    throw new Error("stdout downloads are never conditional");
  }

  completeOnDisk(res: HttpResponse): Promise<DownloadResult> {
    return this.finish(res);
  }

  begin(res: HttpResponse, head: BodyHead): undefined {
    this.#res = res;
    // a body from byte 0 after an attempt cut within the leading bytes held for the format
    // check: those bytes are the old attempt's, and the new body brings them again
    if (head.start === 0 && !this.#headChecked) this.#head = Buffer.alloc(0);
    if (head.start === 0) {
      this.#etag = isStrongEtag(head.etag) ? head.etag : null;
      this.#total = head.total;
      this.#name =
        nameFromContentDisposition(headerValue(res.headers, "content-disposition")) ?? this.#name;
      this.#opts.progress.start({ name: this.#name, total: head.total, offset: 0 });
    }
    return undefined;
  }

  write(chunk: Buffer): undefined | Promise<void> {
    let out = chunk;
    if (!this.#headChecked) {
      this.#head = Buffer.concat([this.#head, chunk]);
      if (this.#head.length < (this.#format === "glb" ? 12 : 4)) return undefined;
      const problem = checkLeadingBytes(this.#format, this.#head, this.#total);
      if (problem) throw corruptDownload(problem, this.#where());
      this.#headChecked = true;
      out = this.#head;
      this.#head = Buffer.alloc(0);
    }
    // stdout keeps what it is given and body chunks are borrowed (src/http/response-body.ts):
    // the bytes are copied first, and the copy is what is hashed and handed over
    const owned = out === chunk ? Buffer.from(out) : out;
    this.#hash.update(owned);
    if (
      this.#format === "zip" &&
      (this.#total === undefined || this.#written + owned.length > this.#total - ZIP_TAIL)
    ) {
      this.#tail = keepTail(this.#tail, owned);
    }
    this.#written += owned.length;
    this.#opts.progress.advance(owned.length);
    if (this.#opts.out.write(owned)) return undefined;
    return drained(this.#opts.out, this.#signal);
  }

  bytes(): number {
    return this.#written + this.#head.length;
  }

  end(): void {}

  reset(reason: string): void {
    if (this.#written > 0) {
      throw new NetworkError(
        `the transfer failed after ${this.#written} bytes and cannot continue the same bytes (${reason}); output is incomplete`,
        { ...this.#where(), detail: { toStdout: true } },
      );
    }
    this.#head = Buffer.alloc(0);
  }

  async finish(res: HttpResponse): Promise<DownloadResult> {
    this.#res = res;
    if (!this.#headChecked) {
      throw corruptDownload(`only ${this.#head.length} bytes received`, this.#where());
    }
    if (this.#format === "zip") {
      const problem = checkZipTail(this.#tail, this.#written);
      if (problem) throw corruptDownload(problem, this.#where());
    }
    const { kind, slug, edition } = this.#opts;
    this.#opts.progress.done({
      name: this.#name,
      bytes: this.#written,
      resumedFrom: 0,
      outcome: "downloaded",
    });
    return {
      kind,
      slug,
      edition,
      path: "-",
      file: this.#name,
      bytes: this.#written,
      sha256: this.#hash.digest("hex"),
      etag: this.#etag,
      status: "downloaded",
      resumedFrom: 0,
    };
  }

  #where(): { httpStatus: number | null; requestId: string | null } {
    return { httpStatus: this.#res?.status ?? null, requestId: this.#res?.requestId ?? null };
  }
}

function keepTail(tail: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= ZIP_TAIL) return Buffer.from(chunk.subarray(chunk.length - ZIP_TAIL));
  const joined = Buffer.concat([tail, chunk]);
  return joined.length > ZIP_TAIL ? joined.subarray(joined.length - ZIP_TAIL) : joined;
}

/**
 * Resolves once `out` drains or closes; rejects with its error or with the signal's reason,
 * also when the signal was aborted already (during the write that filled `out`: an abort
 * listener added then would never fire).
 */
function drained(out: Writable, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
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
