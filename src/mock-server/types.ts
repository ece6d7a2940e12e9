/**
 * Public types of svc-dl-mock, the local mock of the asset download service
 * (`shared/spec/asset-download-service.md`). Everything here is part of the
 * programmatic API agreed in `docs/mock-service.md`.
 */
import type { HostileArchiveKind } from "./hostile-zip.js";

/** Name of a rate-limit policy (spec, Limits table). */
export type PolicyName = "read" | "download" | "public" | "auth";

/** Quota of one policy: `quota` requests per `windowSeconds` seconds (fixed window). */
export interface LimitConfig {
  /** Requests (or failed attempts for `auth`) allowed per window. */
  quota: number;
  /** Window length in seconds. */
  windowSeconds: number;
}

/** Which origin of the mock answered a request. */
export type Origin = "api" | "cdn";

/** Edition of a pack file (spec, "Other resources"). */
export type Edition = "standard" | "authoring";

/** Availability of a pack or asset (spec, "Other named states"). */
export type Availability = "published" | "coming-soon" | "archived";

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
  /** Extra: every CDN response carries a new ETag (as if the file changed between attempts); bytes are unchanged. */
  changingEtag?: boolean;
  /** Extra: every pack file is this hostile archive (zip-slip, symlink, zip bomb, …; see hostile-zip.ts). */
  hostileArchive?: HostileArchiveKind;
  /** Extra: with `hostileArchive`, only the packs with these slugs are hostile (default: every pack). */
  hostileArchiveSlugs?: string[];
}

/** An account of the fixture (spec, "Account"). */
export interface FixtureAccount {
  /** Account id, prefix `usr_`. */
  id: string;
  email: string;
  name: string;
  /** Lifetime access granted directly (also granted by a paid order with `lifetime: true`). */
  lifetime?: boolean;
  /** Every request with one of this account's keys answers 403 `blocked` (`Access denied`) before anything else. */
  blocked?: boolean;
  /** API access switched off for this account: 403 `api_disabled`. */
  apiDisabled?: boolean;
  /** Force 403 `not_eligible` (otherwise derived: an account with no order and no lifetime flag is not eligible). */
  notEligible?: boolean;
}

/** An API key of the fixture (spec, "API key"). */
export interface FixtureApiKey {
  /** Key id, prefix `key_`. */
  id: string;
  /** Owning account id. */
  account: string;
  /** Label the user gave the key. */
  name: string;
  /** Full key: `svc_live_` + 32 letters/digits + `_` + 8 lower-case hex CRC-32 checksum of the 32-char body. */
  key: string;
  /** Scopes: `catalog:read`, `downloads:read`. */
  scopes: string[];
  /** ISO timestamp. */
  created_at: string;
  /** ISO timestamp or null (never used). */
  last_used_at?: string | null;
  /** ISO timestamp after which the key is expired, or null/absent for never. */
  expires_at?: string | null;
  /** True once revoked. */
  revoked?: boolean;
}

/** A license key of the fixture (legacy `POST /api/download`). */
export interface FixtureLicenseKey {
  /** Identifier used in `mock.licenseKeys`. */
  id: string;
  /** Full license key, prefix `SVC_`. */
  key: string;
  /** The order this license key belongs to (its packs / lifetime flag decide coverage, its `paid` flag denial). */
  order: string;
}

/** An order of the fixture. */
export interface FixtureOrder {
  /** Order id, prefix `ord_`. */
  id: string;
  /** Owning account id. */
  account: string;
  /** Pack slugs bought by this order. */
  packs: string[];
  /** True when the order bought lifetime access. */
  lifetime?: boolean;
  /** Total in minor currency units (cents), or null when never recorded (unknown, not free). */
  amount: number | null;
  /** ISO 4217 code, lower case, e.g. `usd`. */
  currency?: string;
  /** False while a refund or dispute is open: new downloads unavailable. */
  paid: boolean;
  /** ISO timestamp: the purchase time (`purchased_at` of the packs). */
  created_at: string;
}

/** A pack of the fixture (spec, "Pack"). */
export interface FixturePack {
  slug: string;
  name: string;
  description: string;
  categories: string[];
  /** Assets in the pack (the `asset_count` field); also the number of GLB entries in the ZIP, capped. */
  asset_count: number;
  /** Default `published`. */
  availability?: Availability;
  /** True when the pack has an authoring edition. */
  authoring?: boolean;
  /** File version; bumping it changes the bytes and the ETag. Default 1. */
  version?: number;
  /** Standard edition ZIP size in bytes (default 2 MiB). */
  size?: number;
  /** Authoring edition ZIP size in bytes (default 1.5 × size). */
  authoring_size?: number;
}

/** An asset of the fixture. */
export interface FixtureAsset {
  slug: string;
  name: string;
  /** Pack the asset belongs to (null for a stand-alone free asset). */
  pack: string | null;
  /** Premium assets need the pack or lifetime access; free ones any valid key. */
  premium: boolean;
  /** Default `published`. */
  availability?: Availability;
  /** GLB size in bytes (default 256 KiB). */
  size?: number;
  /** File version, default 1. */
  version?: number;
  /** When true, the asset exists but its file does not: 404 `file_unavailable`. */
  file_missing?: boolean;
}

/** The whole mock state, as loaded from a JSON fixture file (see README.md, "Testing your scripts offline with svc-dl-mock"). */
export interface Fixture {
  /** Which key ids are the demo credentials (`mock.apiKey`, `mock.licenseKey`, printed by the CLI). */
  demo: { apiKey: string; licenseKey: string };
  accounts: FixtureAccount[];
  apiKeys: FixtureApiKey[];
  licenseKeys: FixtureLicenseKey[];
  orders: FixtureOrder[];
  packs: FixturePack[];
  assets: FixtureAsset[];
}

/** Options of `startMockService()`. All optional. */
export interface MockServiceOptions {
  /** API origin port; 0 (default) picks a free port. Always bound to 127.0.0.1. */
  port?: number;
  /** CDN origin port; 0 (default) picks a free port. */
  cdnPort?: number;
  /** Fixture (default: fixtures/default.json). It is deep-copied; the mock never mutates your object. */
  fixture?: Fixture;
  /** Per-policy quota/window overrides; defaults are the spec's table (120/30/120/20 per 60 s). */
  limits?: Partial<Record<PolicyName, LimitConfig>>;
  /** Honour If-None-Match with 304 (default true); false → a normal 200 with the same ETag. */
  ifNoneMatch?: boolean;
  /** Lifetime of signed CDN URLs in seconds (default 300). */
  signedUrlTtlSeconds?: number;
  /** Status of the CDN for an expired or badly signed URL (default 403). */
  expiredUrlStatus?: 403 | 410;
  /** Fault injection. */
  faults?: Faults;
  /** Override the size in bytes of every pack file (both editions). */
  packSize?: number;
  /** Override the size in bytes of every asset file. */
  assetSize?: number;
  /** Add N extra published packs owned (paid) by the demo account: `bench-pack-001` … */
  extraPacks?: number;
  /** Do not log anything to stderr (default true for the programmatic API). */
  quiet?: boolean;
  /** Write one stderr line per request (the CLI's `--log`). */
  log?: boolean;
  /**
   * The service's clock in ms since the epoch (default `Date.now`): rate-limit windows, key
   * expiry and signed-URL expiry follow it, so tests move time on instead of sleeping.
   */
  now?: () => number;
}

/** One entry of `mock.requests`, appended when the response finishes (or the connection closes). */
export interface RequestLogEntry {
  origin: Origin;
  method: string;
  /** Path + query, as received. */
  url: string;
  /** Request headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Request body as UTF-8 text, or null when there was none. */
  body: string | null;
  /** Response status. */
  status: number;
  /** Response body bytes actually written (excludes headers). */
  bytesSent: number;
  /** The `x-request-id` of the response. */
  requestId: string;
  /** Response headers, lower-case names. */
  responseHeaders: Record<string, string>;
  /** Epoch ms when the request arrived. */
  time: number;
}

/** Which file `fileInfo()` describes. */
export interface FileRef {
  kind: "pack" | "asset";
  slug: string;
  /** Packs only; default "standard". */
  edition?: Edition;
}

/** Facts about the exact bytes the CDN serves for a file (current version). */
export interface FileInfo {
  /** Bytes. */
  size: number;
  /** Strong ETag, with quotes, e.g. `"3f2a…"`. */
  etag: string;
  /** Lower-case hex SHA-256 of the whole file (computed by streaming the generator once, then cached). */
  sha256: string;
  /** File name of `Content-Disposition`. */
  filename: string;
  /** File version used. */
  version: number;
}

/** Patches of per-item state for `mock.set()`. Keys are ids/slugs; the key of `keys` may be the key id or the full key. */
export interface StatePatch {
  /** Global switch: the API is off (403 `api_disabled` everywhere, including `/v1/catalog/*`). */
  apiDisabled?: boolean;
  /** Replace the faults (resets fault counters). */
  faults?: Faults;
  ifNoneMatch?: boolean;
  signedUrlTtlSeconds?: number;
  expiredUrlStatus?: 403 | 410;
  /** Replace limits (merged with current ones) and reset all counters. */
  limits?: Partial<Record<PolicyName, LimitConfig>>;
  packSize?: number | null;
  assetSize?: number | null;
  keys?: Record<string, Partial<Pick<FixtureApiKey, "revoked" | "expires_at" | "scopes">>>;
  accounts?: Record<
    string,
    Partial<Pick<FixtureAccount, "blocked" | "apiDisabled" | "notEligible" | "lifetime">>
  >;
  packs?: Record<
    string,
    Partial<Pick<FixturePack, "availability" | "authoring" | "version" | "size" | "authoring_size">>
  >;
  assets?: Record<
    string,
    Partial<Pick<FixtureAsset, "availability" | "premium" | "version" | "size" | "file_missing">>
  >;
  orders?: Record<string, Partial<Pick<FixtureOrder, "paid" | "amount">>>;
}

/** A running mock service (both origins). */
export interface MockService {
  /** `http://127.0.0.1:PORT`: the spec's `{base_url}` (API under `/api/v1`, legacy at `/api/download`). */
  readonly baseUrl: string;
  /** `http://127.0.0.1:CDNPORT`: the CDN origin the downloads redirect to. */
  readonly cdnUrl: string;
  /** The demo API key (owns every published pack of the fixture, lifetime=false). */
  readonly apiKey: string;
  /** The demo license key (`SVC_…`). */
  readonly licenseKey: string;
  /** Every API key of the fixture: key id → full key (e.g. `keys.key_revoked`). */
  readonly keys: Readonly<Record<string, string>>;
  /** Every license key of the fixture: id → full key. */
  readonly licenseKeys: Readonly<Record<string, string>>;
  /** The request log (live array; both origins). */
  readonly requests: RequestLogEntry[];
  /** Empty the request log. */
  clearLog(): void;
  /**
   * Resolves once every request received so far is in `requests`: a response the client cut
   * short is logged only when the server notices its connection closed, which may come after
   * the client has returned.
   */
  settled(): Promise<void>;
  /** Change state mid-test. */
  set(patch: StatePatch): void;
  /** Revoke a key (id or full key): calls answer 401 `revoked_api_key`. */
  revokeKey(key: string): void;
  /** Expire a key now (id or full key): calls answer 401 `expired_api_key`. */
  expireKey(key: string): void;
  /** Increase a pack's version by one (new bytes, new ETag); returns the new version. */
  bumpPackVersion(slug: string): number;
  /** Reset every rate-limit counter. */
  resetLimits(): void;
  /** Size, ETag, SHA-256 and file name of the bytes the CDN serves now for this file. */
  fileInfo(ref: FileRef): Promise<FileInfo>;
  /** Stop both servers (open connections are destroyed). */
  close(): Promise<void>;
}
