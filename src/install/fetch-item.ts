/**
 * The one place where `svc-dl install` and the library reach the download engine
 * (src/download/engine.ts) and the HTTP client (src/http/client.ts); nothing else in
 * src/install/, src/cache/ or src/library/ imports them directly.
 */
import { assetSource, packSource } from "../api/download-source.js";
import { type PackCatalog, packCatalog } from "../api/pack-catalog.js";
import { type DownloadResult, type DownloadSource, downloadItem } from "../download/engine.js";
import type { HttpClient } from "../http/client.js";
import type { FileProgress } from "../io/progress.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { ItemKey } from "./types.js";

export type { DownloadResult } from "../download/engine.js";

/** What the fetcher needs: the run's services, built lazily (a key is resolved only when a request is due). */
export interface FetchDeps {
  /** Builds (once) the run's HTTP client, clock and signal; called only when a request is actually needed. */
  services: () => Promise<{ http: HttpClient; signal: AbortSignal | undefined }>;
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

/** Builds an {@link ItemFetcher}. */
export function createItemFetcher(deps: FetchDeps): ItemFetcher {
  let catalog: PackCatalog | undefined;
  return {
    async download(item, out, opts = {}) {
      const { http: client, signal } = await deps.services();
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
        signal,
      });
    },
  };
}
