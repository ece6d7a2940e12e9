import { isAbsolute, join, resolve } from "node:path";
import type { AssetRecord } from "../api/list-assets.js";
import type { Me, Pack } from "../api/schemas.js";
import { assertSendableKey, isLicenseKey } from "../config/api-key.js";
import { parseBaseUrl } from "../config/base-url.js";
import { packageVersion } from "../context.js";
import { type GetJsonDocument, toJsonDocument } from "../download/run-get.js";
import { ExitCode } from "../errors/exit-codes.js";
import { toSvcError } from "../errors/format.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { HttpClient } from "../http/client.js";
import { type NetworkSettings, proxySettings, trustedCas } from "../http/dispatcher.js";
import { createHttpClient, createItemFetcher } from "../install/fetch-item.js";
import { MANIFEST_FILE } from "../install/manifest.js";
import type { InstallDocument } from "../install/types.js";
import type { SyncDocument } from "../sync/types.js";
import { type ProgressCallback, progressFor } from "./progress.js";

/** Options of {@link createClient}. */
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
}

/** Options every operation takes. */
export interface CallOptions {
  /** Cancels the operation; a download keeps its partial data (the next call resumes it). */
  signal?: AbortSignal | undefined;
}

/** Options of `downloadPack` / `downloadAsset` (cli-contract "Downloads"). */
export interface DownloadOptions extends CallOptions {
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
export interface SyncOptions extends CallOptions {
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
  onProgress?: ProgressCallback | undefined;
}

/** Options of `install` (cli-contract "Manifest, lock and cache"). */
export interface InstallOptions extends CallOptions {
  /** The manifest file; default `svc-dl.json` in `cwd`. */
  manifest?: string | undefined;
  /** Directory a relative `manifest` is resolved against; default `process.cwd()`. */
  cwd?: string | undefined;
  /** Never write the lock; drift from it throws `lock_mismatch` (exitCode 9). */
  frozen?: boolean | undefined;
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

/** The client of {@link createClient}; every method's result is the CLI's `--json` document. */
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
}

/**
 * Creates a client of the asset download service for Node programs (cli-contract "Library"),
 * sharing the CLI's code: the same HTTP core (request ids, pacing, retries, redirects), the same
 * download engine (resume, verification, state file, directory lock) and the same install.
 * It never prints, never exits, and reads no environment but `options.env` (default none: see
 * {@link ClientOptions.env}). Failures are thrown as errors with `code`, `exitCode`,
 * `httpStatus`, `requestId` and `hint` (SvcError). Throws UsageError (exitCode 2) at once for a
 * bad `baseUrl`, an `apiKey` that is a license key or malformed, a `proxy` (or proxy variable of
 * `env`) that is not an `http(s)://` URL (`invalid_proxy`), and a `caFile` that cannot be read
 * or holds no PEM certificate (`invalid_ca_file`).
 */
export function createClient(options: ClientOptions): SvcDlClient {
  const baseUrl = parseBaseUrl(String(options.baseUrl), "argument");
  const apiKey = options.apiKey?.trim();
  if (apiKey !== undefined && apiKey !== "") {
    if (isLicenseKey(apiKey)) {
      throw new UsageError("apiKey is a license key (SVC_…), not an API key", {
        code: "license_key_as_api_key",
        hint: "API keys start with svc_live_; license keys work only with `svc-dl legacy get`.",
      });
    }
    assertSendableKey(apiKey, "apiKey");
  }
  const network = networkOf(options);
  const userAgent = `svc-dl/${packageVersion()}`;
  const http = (signal: AbortSignal | undefined): HttpClient =>
    createHttpClient({
      baseUrl,
      userAgent,
      network,
      signal,
      maxWaitSeconds: options.maxWaitSeconds,
      onNotice: options.onNotice,
      apiKey: () => {
        if (!apiKey) {
          throw new SvcError(`no API key given for ${baseUrl.origin}`, {
            code: "no_api_key",
            exitCode: 3,
            hint: "Pass apiKey to createClient() (keys are created under Account › Connections › API keys).",
          });
        }
        return apiKey;
      },
    });

  /** Runs one operation with its own HTTP client, closed afterwards; maps an abort to `aborted`. */
  async function call<T>(
    signal: AbortSignal | undefined,
    op: (client: () => HttpClient) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw abortedError(undefined);
    let client: HttpClient | undefined;
    const lazy = (): HttpClient => {
      client ??= http(signal);
      return client;
    };
    try {
      return await op(lazy);
    } catch (err) {
      if (signal?.aborted) throw abortedError(err);
      throw toSvcError(err);
    } finally {
      await client?.close();
    }
  }

  const download = (kind: "pack" | "asset", slug: string, opts: DownloadOptions = {}) =>
    call(opts.signal, async (client) => {
      const { validateSlug } = await import("../download/names.js");
      validateSlug(slug, `${kind} slug`);
      const fetcher = createItemFetcher({
        client: async () => client(),
        progress: progressFor(opts.onProgress),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      });
      const edition = kind === "pack" ? (opts.edition ?? "standard") : null;
      const result = await fetcher.download({ kind, slug, edition }, absolute(opts.dir), {
        lockDir: true,
        waitLock: opts.waitLock ?? 0,
        force: opts.force === true,
      });
      return toJsonDocument(result);
    });

  return {
    whoami: (opts = {}) =>
      call(opts.signal, async (client) => {
        const { getMe } = await import("../api/get-me.js");
        return (await getMe(client())).me;
      }),
    listPacks: (opts = {}) =>
      call(opts.signal, async (client) => {
        const { listPacks } = await import("../api/list-packs.js");
        return listPacks(client());
      }),
    listAssets: (opts = {}) =>
      call(opts.signal, async (client) => {
        const { listAssets } = await import("../api/list-assets.js");
        return listAssets(client());
      }),
    downloadPack: (slug, opts) => download("pack", slug, opts),
    downloadAsset: (slug, opts) => download("asset", slug, opts),
    sync: (dir, opts = {}) =>
      call(opts.signal, async (client) => {
        const { runSync } = await import("../sync/run.js");
        return runSync(
          client(),
          {
            dir: absolute(dir),
            edition: opts.edition ?? "standard",
            refresh: opts.refresh === true,
            dryRun: opts.dryRun === true,
            checksum: opts.checksum === true,
            waitLock: opts.waitLock ?? 0,
            extract: opts.extract === true,
            selection: {
              include: [...(opts.include ?? [])],
              exclude: [...(opts.exclude ?? [])],
              categories: [...(opts.categories ?? [])],
            },
          },
          progressFor(opts.onProgress),
        );
      }),
    install: (opts = {}) =>
      call(opts.signal, async (client) => {
        const { runInstall } = await import("../install/run.js");
        const cwd = absolute(opts.cwd);
        const manifest = opts.manifest ?? MANIFEST_FILE;
        const fetcher = createItemFetcher({
          client: async () => client(),
          progress: progressFor(opts.onProgress),
          ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        });
        return runInstall(
          fetcher,
          {
            manifestPath: isAbsolute(manifest) ? manifest : join(cwd, manifest),
            frozen: opts.frozen === true,
            cacheDir: typeof opts.cacheDir === "string" ? absolute(opts.cacheDir) : undefined,
            extract: opts.extract === true,
            waitLock: opts.waitLock ?? 0,
            signal: opts.signal,
          },
          options.onNotice ? { notice: options.onNotice } : {},
        );
      }),
  };
}

/**
 * The network settings of a client: `proxy`, `caFile` (made absolute now) and `env` (default
 * `{}`), checked at once so that a bad value fails `createClient` rather than the first call.
 */
function networkOf(options: ClientOptions): NetworkSettings {
  const env = options.env ?? {};
  const proxy = options.proxy?.trim();
  const caFile = options.caFile?.trim() ? resolve(process.cwd(), options.caFile.trim()) : undefined;
  const network: NetworkSettings = {
    env,
    ...(proxy ? { proxy } : {}),
    ...(caFile ? { caFile } : {}),
  };
  proxySettings(network);
  trustedCas(network);
  return network;
}

/** `dir` made absolute against the working directory (default: the working directory). */
function absolute(dir: string | undefined): string {
  return resolve(process.cwd(), dir ?? ".");
}

/** The error of an operation cancelled through its AbortSignal. */
function abortedError(cause: unknown): SvcError {
  return new SvcError(
    "the operation was aborted through its AbortSignal; partial data is kept and the next call resumes it",
    { code: "aborted", exitCode: ExitCode.sigint, cause },
  );
}
