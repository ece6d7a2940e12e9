/**
 * The one place where `svc-dl install` and the library reach the download engine
 * (src/download/engine.ts) and the HTTP client (src/http/client.ts); nothing else in
 * src/install/, src/cache/ or src/library/ imports them directly.
 */
import { assetSource, packSource } from "../api/download-source.js";
import { type PackCatalog, packCatalog } from "../api/pack-catalog.js";
import { type DownloadResult, type DownloadSource, downloadItem } from "../download/engine.js";
import { HttpClient } from "../http/client.js";
import type { NetworkSettings } from "../http/dispatcher.js";
import type { FileProgress } from "../io/progress.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { ItemKey } from "./types.js";

export type { DownloadResult } from "../download/engine.js";

/** What the fetcher needs: a lazily built HTTP client (a key is resolved only when a request is due). */
export interface FetchDeps {
  /** Builds (once) the HTTP client; called only when a request is actually needed. */
  client: () => Promise<HttpClient>;
  progress: FileProgress;
  onNotice?: (line: string) => void;
}

/** Downloads items with the engine; remembers the pack listing for the run. */
export interface ItemFetcher {
  /**
   * Downloads `item` into the output directory `out` (opened by the caller) with every download
   * rule (resume, format check, state record, conditional re-validation of a recorded file).
   * Throws what `downloadItem` throws.
   */
  download(item: ItemKey, out: OutputDir, opts?: FetchOptions): Promise<DownloadResult>;
}

/** Per-call options of {@link ItemFetcher.download}. */
export interface FetchOptions {
  progressLabel?: string;
  /** Overwrite a destination svc-dl did not record, and re-download a recorded one. */
  force?: boolean;
}

/** What the library needs to build an HTTP client for one operation. */
export interface HttpSettings {
  baseUrl: URL;
  /** The API key, or undefined: a request that needs one then throws `no_api_key` (exit 3). */
  apiKey: () => string;
  userAgent: string;
  /**
   * Proxy, extra CAs and the environment they may come from (src/http/dispatcher.ts). The
   * library passes the caller's `env` (default `{}`), never `process.env` on its own.
   */
  network: NetworkSettings;
  signal?: AbortSignal | undefined;
  /** Longest total wait on 429s, in seconds. */
  maxWaitSeconds?: number | undefined;
  onNotice?: ((line: string) => void) | undefined;
}

/**
 * Builds the HTTP client of one library operation (the CLI builds its own in src/session.ts):
 * the same transport (keep-alive dispatcher, proxy through `CONNECT`, extra CAs, 30 s silence
 * limit, retries and pacing). Throws UsageError (exit 2) `invalid_proxy` / `invalid_ca_file`
 * for a bad proxy address or an unreadable CA file.
 */
export function createHttpClient(settings: HttpSettings): HttpClient {
  return new HttpClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    userAgent: settings.userAgent,
    network: settings.network,
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.maxWaitSeconds !== undefined
      ? { retry: { maxWaitSeconds: settings.maxWaitSeconds } }
      : {}),
    ...(settings.onNotice ? { onNotice: settings.onNotice } : {}),
  });
}

/** Builds an {@link ItemFetcher}. */
export function createItemFetcher(deps: FetchDeps): ItemFetcher {
  let catalog: PackCatalog | undefined;
  return {
    async download(item, out, opts = {}) {
      const client = await deps.client();
      let source: DownloadSource;
      if (item.kind === "pack") {
        catalog ??= packCatalog(client);
        const edition = item.edition === "authoring" ? "authoring" : "standard";
        source = await packSource(client, catalog, item.slug, edition);
      } else {
        source = assetSource(client, item.slug);
      }
      return downloadItem(client, {
        kind: item.kind,
        slug: item.slug,
        edition: item.edition,
        source,
        out,
        ...(opts.force === true ? { force: true } : {}),
        progress: deps.progress,
        ...(opts.progressLabel !== undefined ? { progressLabel: opts.progressLabel } : {}),
        ...(deps.onNotice ? { onNotice: deps.onNotice } : {}),
      });
    },
  };
}
