import type { HttpResponse } from "../http/request-types.js";
import type { BodyLender } from "../http/response-body.js";

/** Bytes a sink already holds and can resume from (`Range: bytes=offset-`, `If-Range: etag`). */
export interface ResumePoint {
  offset: number;
  /** Strong ETag the bytes came with. */
  etag: string;
  /** Full size in bytes, when known (undefined after a chunked response). */
  total: number | undefined;
}

/** The head of a usable 200/206 answer, as the sink sees it. */
export interface BodyHead {
  /** Offset the body starts at: 0 for 200, the resume offset for 206. */
  start: number;
  /** Full size in bytes: Content-Length of a 200, the Content-Range total of a 206. */
  total: number | undefined;
  etag: string | null;
}

/**
 * Where the bytes of a download go (cli-contract "Downloads"): the part file, stdout, or
 * nowhere (headers only). `fetchBody` (src/download/fetch-body.ts) calls `resumePoint` before
 * each attempt, then one of `unchanged` / `completeOnDisk` / `begin` (+ `write`… + `finish`),
 * and `reset` whenever it must start over from zero.
 */
export interface DownloadSink<R> {
  /** ETag for `If-None-Match` (revalidating a recorded file), when there is no resume point. */
  readonly conditionalEtag?: string | undefined;
  /** The bytes held now, or undefined to start from zero. */
  resumePoint(): ResumePoint | undefined;
  /** 304, or 200 with the conditional ETag: the recorded file is current (body not read). */
  unchanged(res: HttpResponse): R | Promise<R>;
  /** 416 `bytes *\/N` with N = the bytes held: the held bytes are the whole file. */
  completeOnDisk(res: HttpResponse, total: number): Promise<R>;
  /** A usable head: prepare for its body. Returns a result to stop here (headers only; the body is abandoned). */
  begin(res: HttpResponse, head: BodyHead): { result: R } | undefined;
  /** One body chunk; a promise pauses the socket until it settles. Throws to abort. */
  write(chunk: Buffer): undefined | Promise<void>;
  /**
   * Optional: memory for the next socket read to land in, so that its `write` needs no copy
   * (see {@link BodyLender}). Undefined: the transport reads into its own buffer.
   */
  lend?(): Buffer | undefined;
  /** Bytes held now (resume offset plus what was written). */
  bytes(): number;
  /** The transfer of this attempt ended (successfully or not): release what `begin` opened. */
  end(): void;
  /** Throws away every byte held (start over from zero). Throws if that is impossible (stdout). */
  reset(reason: string): void;
  /** The whole body arrived: check it and finish. */
  finish(res: HttpResponse, head: BodyHead): Promise<R>;
}

/** A strong ETag (`"…"`, not `W/"…"`): the only validator safe for `If-Range`. */
export function isStrongEtag(etag: string | null | undefined): etag is string {
  return typeof etag === "string" && /^"[^"]*"$/.test(etag.trim());
}
