/**
 * LEAD (merge): the ONE place where `svc-dl install` and the library reach the download engine
 * and the HTTP client. Re-wire here when the transport (src/http/), the engine options, or
 * `listAssets` (src/api/list-assets.ts of the "select" branch) change; nothing else in
 * src/install/, src/cache/ or src/library/ imports the engine or the HTTP client directly.
 */
import { z } from "zod";
import { HttpClient } from "../api/http.js";
import { listPacks } from "../api/list-packs.js";
import { paginate } from "../api/paginate.js";
import type { Pack } from "../api/schemas.js";
import { type DownloadResult, type DownloadSource, downloadItem } from "../download/engine.js";
import { makeDirectory } from "../download/mkdir.js";
import { stateDirOf } from "../download/state.js";
import { fsError } from "../download/writer.js";
import { ResponseError } from "../errors/response-error.js";
import type { FileProgress } from "../io/progress.js";
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
   * Downloads `item` into `dir` (absolute) with every download rule (resume, format check,
   * state record, conditional re-validation of a recorded file). The caller holds `dir`'s
   * lock (or the lock of a directory containing it). Throws what `downloadItem` throws.
   */
  download(item: ItemKey, dir: string, opts?: FetchOptions): Promise<DownloadResult>;
}

/** Per-call options of {@link ItemFetcher.download}. */
export interface FetchOptions {
  progressLabel?: string;
  /** Lock `dir` for this call (the library's single downloads); default false: the caller holds it. */
  lockDir?: boolean;
  /** Overwrite a destination svc-dl did not record, and re-download a recorded one. */
  force?: boolean;
}

/** What the library needs to build an HTTP client for one operation. */
export interface HttpSettings {
  baseUrl: URL;
  /** The API key, or undefined: a request that needs one then throws `no_api_key` (exit 3). */
  apiKey: () => string;
  userAgent: string;
  signal?: AbortSignal | undefined;
  /** Longest total wait on 429s, in seconds. */
  maxWaitSeconds?: number | undefined;
  onNotice?: ((line: string) => void) | undefined;
}

/**
 * Builds the HTTP client of one library operation (the CLI builds its own in src/session.ts).
 * LEAD: pass `proxy` and `caFile` of createClient() to the new transport here (src/http/).
 */
export function createHttpClient(settings: HttpSettings): HttpClient {
  return new HttpClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    userAgent: settings.userAgent,
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.maxWaitSeconds !== undefined
      ? { retry: { maxWaitSeconds: settings.maxWaitSeconds } }
      : {}),
    ...(settings.onNotice ? { onNotice: settings.onNotice } : {}),
  });
}

/** Builds an {@link ItemFetcher}. */
export function createItemFetcher(deps: FetchDeps): ItemFetcher {
  let packs: Promise<Pack[]> | undefined;
  return {
    async download(item, dir, opts = {}) {
      const client = await deps.client();
      let source: DownloadSource;
      if (item.kind === "pack") {
        packs ??= listPacks(client);
        source = packSource(client, await packs, item);
      } else {
        source = { url: client.apiUrl(`assets/${encodeURIComponent(item.slug)}/download`) };
      }
      // Without its own lock the engine expects its bookkeeping directory to exist.
      if (opts.lockDir !== true) {
        try {
          makeDirectory(stateDirOf(dir));
        } catch (err) {
          throw fsError(`cannot create ${stateDirOf(dir)}`, err);
        }
      }
      return downloadItem(client, {
        kind: item.kind,
        slug: item.slug,
        edition: item.edition,
        source,
        dir,
        ...(opts.lockDir === true ? {} : { lock: false as const }),
        ...(opts.force === true ? { force: true } : {}),
        progress: deps.progress,
        ...(opts.progressLabel !== undefined ? { progressLabel: opts.progressLabel } : {}),
        ...(deps.onNotice ? { onNotice: deps.onNotice } : {}),
      });
    },
  };
}

/**
 * The download request of a pack edition: the record's `downloads.bundle`/`downloads.authoring`
 * URL (spec: clients use the given URLs), else the API route, so the service answers with its
 * own error (`not_entitled`, `not_found`, `file_unavailable`).
 * LEAD: duplicate of `packDownloadSource` in src/commands/pack/get.ts (not exported there).
 */
function packSource(client: HttpClient, packs: readonly Pack[], item: ItemKey): DownloadSource {
  const pack = packs.find((p) => p.slug === item.slug);
  const given = item.edition === "authoring" ? pack?.downloads.authoring : pack?.downloads.bundle;
  if (given !== undefined) {
    try {
      return { url: new URL(given, client.baseUrl) };
    } catch (err) {
      throw new ResponseError(
        `the pack record's download URL is not a URL: ${given.slice(0, 80)}`,
        {
          httpStatus: null,
          requestId: null,
          cause: err,
        },
      );
    }
  }
  const query: Record<string, string> =
    item.edition === "authoring" ? { edition: "authoring" } : {};
  return { url: client.apiUrl(`packs/${encodeURIComponent(item.slug)}/download`, query) };
}

/** An asset record of `GET /v1/assets` (kept as received; `slug` required). */
const AssetRecordSchema = z.looseObject({ slug: z.string().min(1) });

/**
 * `GET /v1/assets`, every page, records as received (cli-contract "assets list").
 * LEAD: dedupe with src/api/list-assets.ts of the "select" branch.
 */
export async function listAssetRecords(client: HttpClient): Promise<Record<string, unknown>[]> {
  return paginate(client, { path: "assets", item: AssetRecordSchema });
}
