/**
 * Fault injection of svc-dl-mock (docs/mock-service.md, "Fault injection"): part of the
 * programmatic API agreed there.
 */
import type { HostileArchiveKind } from "./hostile-zip.js";

/** Which origin of the mock answered a request. */
export type Origin = "api" | "cdn";

/**
 * Fault injection (docs/mock-service.md, "Fault injection"). All optional; a `count` means "the first
 * K matching responses", after which the mock behaves normally again. Setting
 * faults with `set({ faults })` replaces the previous faults and resets counters.
 */
export interface Faults {
  /** CDN file bodies (200/206): destroy the socket after `bytes` body bytes, on the first `count` responses. */
  dropAfterBytes?: { bytes: number; count: number };
  /** First `count` requests to `origin` (default "api") answer `status` (default 500) with `internal_error`, before the limiter (no rate-limit headers). */
  serverError?: { count: number; origin?: Origin; status?: 500 | 502 | 503 | 504 };
  /** First `count` API requests that reach the limiter answer 429 `rate_limited` with `Retry-After: retryAfter` (seconds). */
  rateLimited?: { count: number; retryAfter: number };
  /** CDN bodies are paced at this many bytes per second. */
  throttleBytesPerSecond?: number;
  /**
   * CDN bodies are written in pieces of these sizes in bytes, taken in turn and repeated (e.g.
   * `[1, 4093, 65537]`), each piece one write to the socket. Default: writes of up to 1 MiB.
   */
  chunkSizes?: number[];
  /**
   * First `count` CDN file requests that carry a `Range` answer 416 `range_not_satisfiable`, as
   * for a range that starts past the end (with the file's real size in `Content-Range`).
   */
  rangeNotSatisfiable?: { count: number };
  /** The download routes answer 302 to themselves forever. */
  redirectLoop?: boolean;
  /** Raw `Content-Disposition` header value for CDN files (e.g. a hostile `../../etc/passwd`). */
  contentDisposition?: string;
  /** First `count` API requests answer an HTML page (`text/html`) with `status` (default 502) instead of JSON. */
  htmlErrorPage?: { count: number; status?: number };
  /** First `count` CDN file responses declare the full Content-Length but send only `bytes` body bytes, then end and close the connection cleanly (FIN). */
  shortBody?: { count: number; bytes: number };
  /** First `count` CDN file requests answer as if the signed URL had expired, with `status` (default 403). */
  cdnExpired?: { count: number; status?: 403 | 410 };
  /** Extra: list routes (`/packs`, `/assets`, `/orders`) always answer `has_more: true` with the same `next_cursor`: a pagination that never ends. */
  paginationLoop?: boolean;
  /** Extra: first `count` JSON API responses (2xx) carry a truncated, malformed JSON body. */
  malformedJson?: { count: number };
  /** First `count` CDN file GET responses that cover byte `offset` of the file (0-based; negative: from the end) send it with its bits inverted: damaged bytes under an intact status and length. */
  flipByte?: { offset: number; count: number };
  /** Extra: every CDN response carries a new ETag (as if the file changed between attempts); bytes are unchanged. */
  changingEtag?: boolean;
  /** Extra: every pack file is this hostile archive (zip-slip, symlink, zip bomb, …; see hostile-zip.ts). */
  hostileArchive?: HostileArchiveKind;
  /** Extra: with `hostileArchive`, only the packs with these slugs are hostile (default: every pack). */
  hostileArchiveSlugs?: string[];
}
