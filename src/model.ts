/**
 * The domain of svc-dl (cli-contract "JSON documents"): the types the rest of the code and the
 * library's public types are built from. The zod schemas of what `--json` prints live in
 * src/documents.ts. Imports nothing.
 */

/** What can be downloaded: a pack (a ZIP with editions) or a single asset. */
export type ItemKind = "pack" | "asset";

/** A pack's edition (spec "Pack": `downloads.bundle` is standard, `downloads.authoring`). */
export type Edition = "standard" | "authoring";

/** A pack's edition, as `packs sync` names its targets. */
export type PackEdition = Edition;

/** `packs sync --edition`: one edition, or both where the pack has an authoring one. */
export type EditionChoice = Edition | "all";

/**
 * Time for code that waits (retry backoff, rate-limit waits, the directory lock's polling):
 * `now()` in ms since the epoch; `sleep(ms, signal)` rejects when `signal` aborts. One per run:
 * the system clock, or a manual one in tests, so no test waits real seconds.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Identifies a downloadable item: a pack edition or an asset (`edition` null). */
export interface ItemRef {
  kind: ItemKind;
  slug: string;
  edition: Edition | null;
}

/**
 * Where one item's bytes are requested (spec "Downloads"): the first request of every download
 * attempt, sent again whenever a fresh signed CDN URL is needed. Built by `api/download-source.ts`
 * (pack and asset routes) and `api/legacy-download.ts` (legacy `POST /api/download`).
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

/** How a `get` ended for a file (cli-contract "JSON documents": `status`). */
export type GetStatus = "downloaded" | "resumed" | "up-to-date" | "adopted" | "repaired";

/**
 * The `--json` document of one `get` (cli-contract "JSON documents"): the item, the absolute
 * path, its size in bytes, lower-case hex SHA-256, the ETag it was served with (null if none),
 * the status and the byte offset a resume started from (0 when not resumed).
 */
export interface GetJsonDocument extends ItemRef {
  path: string;
  bytes: number;
  sha256: string;
  etag: string | null;
  status: GetStatus;
  resumed_from: number;
}

/**
 * The `error` of a failed item of a multi-item run (packs sync, install, the `get` verbs, verify
 * --repair, deferred items): the same fields as the contract's `--json` error document.
 */
export interface ItemError {
  code: string;
  message: string;
  http_status: number | null;
  request_id: string | null;
  /** The item's next step (the thrower's hint, else the error table's); null when none. */
  hint: string | null;
}

/**
 * A file's verdict in `verify` (cli-contract "verify", "Integrity"): `ok` (recorded size and
 * SHA-256, format checks pass); `changed` (other bytes, or not a regular file); `damaged` (the
 * recorded bytes, but a ZIP entry's CRC-32 or size, or the GLB structure, fails); `missing`;
 * `repaired` (downloaded again by `--repair`, then ok); `forgotten` (record dropped by
 * `--forget-missing`); `deferred` (not hashed or repaired before `--max-duration` ended the run).
 */
export type VerifyStatus =
  | "ok"
  | "changed"
  | "damaged"
  | "missing"
  | "repaired"
  | "forgotten"
  | "deferred";

/** One item of the `verify --json` document. */
export interface VerifyDocumentItem {
  /** Absolute path of the recorded file. */
  path: string;
  status: VerifyStatus;
  /** SHA-256 of the file as it is now (lower-case hex); null when missing or not a regular file. */
  sha256: string | null;
  /** With `damaged`: what the format check found (the entry, its offset and what is wrong). */
  damage?: string;
  /** Size now in bytes; null when missing. */
  bytes: number | null;
  kind: ItemKind;
  slug: string;
  edition: Edition | null;
  /** With `--repair` only: why the item could not be repaired (as a failed sync item's), or null. */
  error?: ItemError | null;
}

/** Counts of the `verify --json` summary (`repaired`, `forgotten`, `deferred` with their options). */
export interface VerifySummary {
  ok: number;
  changed: number;
  damaged: number;
  missing: number;
  repaired?: number;
  forgotten?: number;
  deferred?: number;
}

/**
 * The `verify --json` document (cli-contract "JSON documents"): DIR (absolute), one item per
 * recorded file in file-name order, and the counts. Every file ended `ok`, `repaired` or
 * `forgotten` exactly when `changed`, `damaged` and `missing` are all 0.
 */
export interface VerifyDocument {
  dir: string;
  items: VerifyDocumentItem[];
  summary: VerifySummary;
}
