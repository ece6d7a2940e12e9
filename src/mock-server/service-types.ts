/**
 * The running svc-dl-mock and its options: limits, the request log, file facts and mid-test
 * state patches. Part of the programmatic API agreed in `docs/mock-service.md`.
 */
import type { Faults, Origin } from "./fault-types.js";
import type {
  Edition,
  Fixture,
  FixtureAccount,
  FixtureApiKey,
  FixtureAsset,
  FixtureOrder,
  FixturePack,
} from "./fixture-types.js";

/** Name of a rate-limit policy (spec, Limits table). */
export type PolicyName = "read" | "download" | "public" | "auth";

/** Quota of one policy: `quota` requests per `windowSeconds` seconds (fixed window). */
export interface LimitConfig {
  /** Requests (or failed attempts for `auth`) allowed per window. */
  quota: number;
  /** Window length in seconds. */
  windowSeconds: number;
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
