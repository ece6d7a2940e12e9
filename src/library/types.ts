import type { AssetRecord, Me, Pack } from "../api/schemas.js";
import type { GetJsonDocument } from "../documents/parts.js";
import type { VerifyDocument } from "../documents/runs.js";
import type { InstallDocument } from "../install/types.js";
import type { Clock } from "../model.js";
import type { SyncDocument } from "../sync/types.js";

/** Options of `createClient()` (src/library/client.ts). */
export interface ClientOptions {
  /** The service address (the spec's `{base_url}`, without `/api`); `http://` only for loopback hosts. */
  baseUrl: string | URL;
  /** The API key (`svc_live_…`). Optional: only operations that make a request need it. */
  apiKey?: string | undefined;
  /**
   * Proxy for every request, API and CDN alike (`http://host:port`; https goes through a
   * `CONNECT` tunnel, so the proxy never sees the key). Overrides proxy variables of `env`.
   */
  proxy?: string | undefined;
  /** PEM file of extra trusted CA certificates (absolute, or relative to `process.cwd()`). */
  caFile?: string | undefined;
  /**
   * The environment the network settings may come from, as the CLI reads them
   * (cli-contract "Networks"): `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (lower-case wins) when
   * `proxy` is not given, and `NODE_EXTRA_CA_CERTS` kept beside `caFile`. Default `{}`: the
   * library never reads `process.env` on its own, so a proxy variable of the process is NOT
   * used unless you opt in with `env: process.env` (or pass only the variables you want).
   * Nothing else is read from it (no `SVC_API_KEY`, `SVC_BASE_URL`, `SVC_CA_FILE`).
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Longest total wait on rate limits (429) per operation, in seconds; default 300. */
  maxWaitSeconds?: number | undefined;
  /** Notices (waits, retries, restarts) that the CLI prints on stderr; the library prints nothing. */
  onNotice?: ((line: string) => void) | undefined;
  /**
   * For tests and embedding: the time every wait of an operation uses (retry backoff,
   * rate-limit waits, `limitRate` pacing, the lock's polling, the `maxDuration` window).
   * `sleep(ms, signal)` must reject when `signal` aborts. Default: the system clock. With a
   * clock given, `maxDuration` is measured on it alone.
   */
  clock?: Clock | undefined;
}

/** Options every operation takes. */
export interface CallOptions {
  /** Cancels the operation; a download keeps its partial data (the next call resumes it). */
  signal?: AbortSignal | undefined;
}

/**
 * Unattended pacing of an operation (cli-contract "Operating unattended"), as the CLI's
 * `--limit-rate` and `--max-duration`. A bad value throws UsageError (exitCode 2)
 * `invalid_limit_rate` / `invalid_max_duration` before any request.
 */
export interface PacingOptions {
  /**
   * Most bytes per second of every download body: a number of bytes per second, or curl's
   * syntax (`"500K"`, `"5M"`, `"1G"`: powers of 1024). At least 2048 bytes per second.
   * Default: no limit. The socket is paused, never buffered.
   */
  limitRate?: number | string | undefined;
  /**
   * The operation's time window: seconds (a number above 0, or `"90s"`, `"30m"`, `"2h"`)
   * counted from the call, or a `Date` at which it ends. No item starts after it, a running
   * download stops at it (partial data kept, the next call resumes it), and the operation
   * throws an error with code `deadline_reached` (exitCode 10, retryable) unless everything
   * finished. With `report`, the document lists the items not started as `deferred`.
   */
  maxDuration?: number | string | Date | undefined;
}

/** Options of `downloadPack` / `downloadAsset` (cli-contract "Downloads"). */
export interface DownloadOptions extends CallOptions, PacingOptions, ReportOptions {
  /** Output directory (absolute, or relative to `process.cwd()`); default the working directory. */
  dir?: string | undefined;
  /** Pack edition; default `standard` (ignored for assets). */
  edition?: "standard" | "authoring" | undefined;
  /** Overwrite a file svc-dl did not download, as `--force` does. */
  force?: boolean | undefined;
  /** Seconds to wait for another run's lock on `dir` (as `--wait-lock`); default 0: `locked` at once. */
  waitLock?: number | undefined;
  /** Progress of the file: `{ bytes, total }` (total undefined when the size is unknown). */
  onProgress?: ProgressCallback | undefined;
}

/** Options of `sync` (cli-contract "packs sync"). */
export interface SyncOptions extends CallOptions, PacingOptions, RunOptions {
  edition?: "standard" | "authoring" | "all" | undefined;
  /** Re-validate complete packs with one conditional request each. */
  refresh?: boolean | undefined;
  /** Report what would be downloaded; download nothing. */
  dryRun?: boolean | undefined;
  /** Re-hash every recorded file and fetch again any that differs (as `--checksum`). */
  checksum?: boolean | undefined;
  /** Seconds to wait for another run's lock on `dir` (as `--wait-lock`); default 0. */
  waitLock?: number | undefined;
  /** Unpack each complete pack ZIP into `<dir>/<file name without .zip>/` (as `--extract`). */
  extract?: boolean | undefined;
  /** Shell globs of slugs to keep (as `--include`, repeatable); none keeps every pack. */
  include?: readonly string[] | undefined;
  /** Shell globs of slugs to leave out (as `--exclude`; wins over include). */
  exclude?: readonly string[] | undefined;
  /** Keep only packs with any of these categories, any case (as `--category`). */
  categories?: readonly string[] | undefined;
  /**
   * Move the files `dir` records for packs no longer owned to `<dir>/.svc-dl/trash/<UTC date>/`
   * (never deleted; status `pruned`), only after a complete listing, as `--prune`. Never a
   * file svc-dl did not record or whose bytes differ (`kept-modified`). Default: such files
   * are listed `not-owned`. With `dryRun`: `would-prune`, nothing moved.
   */
  prune?: boolean | undefined;
  /**
   * Most files `prune` may move (as `--max-delete`); default 20. More would be moved: nothing
   * is moved and the call throws `prune_limit` (exitCode 1).
   */
  maxDelete?: number | undefined;
  onProgress?: ProgressCallback | undefined;
}

/**
 * Options of an operation that can leave its document and metrics in files (cli-contract
 * "Operating unattended": `--report`, `--metrics`).
 */
export interface ReportOptions {
  /**
   * A file (absolute, or relative to `process.cwd()`) that receives the operation's JSON
   * document, as `--report` writes it: atomically (temp file + rename in its folder), on every
   * exit. A call that throws part-way leaves the operation's own document of the items settled
   * so far with `"complete": false` and `"error": {code, message, request_id, retryable,
   * hint}`. `downloadPack`/`downloadAsset` write the one-item run document `{items, summary,
   * complete}` (as `pack get SLUG --report` does). A file that cannot be written (or a
   * symlink, FIFO, device or directory at its path) makes a call that had succeeded with
   * nothing failed reject, once the operation is done, with FileSystemError (`exitCode` 8:
   * `write_failed`, `unsafe_output_path`, `no_space`, `permission_denied`), as the CLI exits
   * 8; a call that failed (or a sync with failed items) keeps its own outcome and the file is
   * a `warning:` notice (`onNotice`). The same holds for `metrics`.
   */
  report?: string | undefined;
  /**
   * A Prometheus textfile (node_exporter's textfile collector), written atomically on every
   * exit as `--metrics` writes it: labels `command` (`packs sync`, `install`, `pack get`,
   * `asset get`, `verify`) and `dir`; `svc_dl_exit_code` is the CLI's exit code for the
   * outcome (the error's `exitCode`, 1 for a sync with failed items or a verify with files not
   * ok, else 0);
   * `svc_dl_last_success_timestamp_seconds` is kept from the previous file when the call failed.
   */
  metrics?: string | undefined;
}

/** Options of a multi-item operation (`sync`, `install`). */
export interface RunOptions extends ReportOptions {
  /**
   * Called after each item settles (its file in place, and extracted) with the item's document
   * as the result lists it, as `--on-item` runs a command. Calls are made one at a time, in
   * order; a returned promise is awaited before the next call and before the operation
   * returns. A throw (or rejection) is a `warning:` notice (`onNotice`), never a failed item.
   */
  onItem?: ((item: Record<string, unknown>) => void | Promise<void>) | undefined;
}

/** Options of `install` (cli-contract "Manifest, lock and cache"). */
export interface InstallOptions extends CallOptions, PacingOptions, RunOptions {
  /** The manifest file; default `svc-dl.json` in `cwd`. */
  manifest?: string | undefined;
  /** Directory a relative `manifest` is resolved against; default `process.cwd()`. */
  cwd?: string | undefined;
  /** Never write the lock; drift from it throws `lock_mismatch` (exitCode 9). */
  frozen?: boolean | undefined;
  /**
   * Re-fetch these slugs (`true`: every item) and rewrite their lock entries with what the
   * service serves (the document's `lock_changes` lists what changed). Not with `frozen`.
   */
  update?: boolean | readonly string[] | undefined;
  /**
   * The download cache directory. The library never reads `SVC_DL_CACHE_DIR` itself: pass
   * `defaultCacheDir()` (or any directory) to use a cache; omitted or false, no cache.
   */
  cacheDir?: string | false | undefined;
  /** Extract every pack once verified (into `<dir>/<file name without .zip>/`; ZIP kept). */
  extract?: boolean | undefined;
  /** Seconds to wait for another run's lock on the manifest's `dir`; default 0. */
  waitLock?: number | undefined;
  onProgress?: ProgressCallback | undefined;
}

/** Options of `verify` (cli-contract "verify", "Integrity"). */
export interface VerifyOptions extends CallOptions, PacingOptions, RunOptions {
  /**
   * Download every item that is `changed`, `damaged` or `missing` again, whatever its size and
   * modification time say (as `--repair`; needs `apiKey`), then verify it: `repaired` when it
   * now is ok. Not with `forgetMissing`.
   */
  repair?: boolean | undefined;
  /** Drop the records of missing files (as `--forget-missing`): `forgotten`. */
  forgetMissing?: boolean | undefined;
  /** Seconds to wait for another run's lock on `dir` (repairs only, as `--wait-lock`); default 0. */
  waitLock?: number | undefined;
  /** Progress of each repair download. */
  onProgress?: ProgressCallback | undefined;
}

/** The client of `createClient()`; every method's result is the CLI's `--json` document. */
export interface SvcDlClient {
  /** `GET /v1/me`: `{ account, entitlements, key }` (as `whoami --json`). */
  whoami(opts?: CallOptions): Promise<Me>;
  /** Every owned pack, all pages, as received (as `packs list --json`). */
  listPacks(opts?: CallOptions): Promise<Pack[]>;
  /** Every asset record of `GET /v1/assets`, all pages, as received (as `assets list --json`). */
  listAssets(opts?: CallOptions): Promise<AssetRecord[]>;
  /** Downloads a pack ZIP into `opts.dir` (as `pack get --json`). */
  downloadPack(slug: string, opts?: DownloadOptions): Promise<GetJsonDocument>;
  /** Downloads an asset GLB into `opts.dir` (as `asset get --json`). */
  downloadAsset(slug: string, opts?: DownloadOptions): Promise<GetJsonDocument>;
  /** Makes `dir` hold every owned pack (as `packs sync --json`; failed items have status `failed`). */
  sync(dir: string, opts?: SyncOptions): Promise<SyncDocument>;
  /**
   * Installs what the manifest declares (as `install --json`). Throws an error with `document`
   * (the run's document) for `lock_mismatch` (exitCode 9) and `install_incomplete` (exitCode 1).
   */
  install(opts?: InstallOptions): Promise<InstallDocument>;
  /**
   * Checks every file svc-dl recorded in `dir` (absolute, or relative to `process.cwd()`), as
   * `verify --json`: size and SHA-256 against the record, then every ZIP entry's CRC-32 and
   * size and every GLB's structure; offline unless `repair`. Every file ended well (`ok`,
   * `repaired`, `forgotten`) exactly when the summary's `changed`, `damaged` and `missing` are
   * 0; the call does not throw for them (as `verify` exits 1). Throws `dir_not_found`
   * (exitCode 2) for a `dir` that is not a directory, `unsafe_state_dir` (exitCode 8), `usage_error`
   * for `repair` with `forgetMissing`, and with `repair` the errors that stop every download
   * (no key, account-level API errors, `aborted`, `deadline_reached`).
   */
  verify(dir: string, opts?: VerifyOptions): Promise<VerifyDocument>;
}

/** Progress of the file being transferred: `bytes` on disk so far, `total` when known. */
export interface ProgressEvent {
  bytes: number;
  total: number | undefined;
}

/** The library's progress callback (called per received chunk; keep it cheap). */
export type ProgressCallback = (event: ProgressEvent) => void;
