import { dirname, isAbsolute, join, resolve } from "node:path";
import { assertSendableKey, isLicenseKey } from "../config/api-key.js";
import { parseBaseUrl } from "../config/base-url.js";
import { packageVersion } from "../context.js";
import { type GetManyDocument, getManyDocument, toJsonDocument } from "../download/document.js";
import { toSvcError } from "../errors/format.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";
import { type NetworkSettings, proxySettings, trustedCas } from "../http/dispatcher.js";
import { createItemFetcher } from "../install/fetch-item.js";
import { MANIFEST_FILE } from "../install/manifest.js";
import type { InstallItemResult } from "../install/types.js";
import type { GetJsonDocument } from "../model.js";
import type { Deadline } from "../pacing/deadline.js";
import { createServices, type Services } from "../services.js";
import { DEFAULT_MAX_DELETE } from "../sync/prune.js";
import type { SyncItemResult } from "../sync/types.js";
import { progressFor } from "./progress.js";
import type {
  CallOptions,
  ClientOptions,
  DownloadOptions,
  PacingOptions,
  RunOptions,
  SvcDlClient,
} from "./types.js";
import { type LibraryRun, type OperationPacing, operationPacing, withRun } from "./unattended.js";

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
  const services = (pacing: OperationPacing): Services =>
    createServices({
      baseUrl,
      userAgent,
      network,
      ...pacing,
      ...(options.maxWaitSeconds !== undefined
        ? { retry: { maxWaitSeconds: options.maxWaitSeconds } }
        : {}),
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      apiKey: apiKey || undefined,
      missingKey: {
        given: "given",
        hint: "Pass apiKey to createClient() (keys are created under Account › Connections › API keys).",
      },
    });

  /**
   * Runs one operation with its own services (an HTTP client paced by `limitRate`/`maxDuration`,
   * whose window starts now; the run's clock and signal), built on first use and closed
   * afterwards; maps an abort to `aborted`.
   */
  async function call<T>(
    opts: CallOptions & PacingOptions,
    op: (run: () => Services, deadline: Deadline | undefined) => Promise<T>,
  ): Promise<T> {
    const { signal } = opts;
    if (signal?.aborted) throw abortedError(undefined);
    const pacing = operationPacing(opts, signal, options.clock);
    let built: Services | undefined;
    const lazy = (): Services => {
      built ??= services(pacing);
      return built;
    };
    try {
      return await op(lazy, pacing.deadline);
    } catch (err) {
      if (signal?.aborted) throw abortedError(err);
      throw toSvcError(err);
    } finally {
      await built?.http.close();
    }
  }

  const download = (kind: "pack" | "asset", slug: string, opts: DownloadOptions = {}) =>
    call(opts, async (services, deadline) => {
      deadline?.check();
      const { validateSlug } = await import("../outdir/names.js");
      validateSlug(slug, `${kind} slug`);
      const fetcher = createItemFetcher({
        services: async () => services(),
        progress: progressFor(opts.onProgress),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      });
      const edition = kind === "pack" ? (opts.edition ?? "standard") : null;
      const { OutputDir } = await import("../outdir/output-dir.js");
      const dir = absolute(opts.dir);
      // a report or metrics file holds the one-slug run document, as `pack get --report` writes
      const sinks = { file: opts.report, metrics: opts.metrics, command: `${kind} get`, dir };
      const facts = { deadline: deadline !== undefined };
      let single: GetJsonDocument | undefined;
      await withRun({ ...sinks, head: {} }, options.onNotice, async (run) => {
        run.describe({ document: (items: ManyItems) => getManyDocument(items, facts) });
        const out = await OutputDir.open(dir, {
          waitSeconds: opts.waitLock ?? 0,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(options.clock ? { clock: options.clock } : {}),
        });
        try {
          const result = await fetcher.download({ kind, slug, edition }, out, {
            force: opts.force === true,
          });
          single = toJsonDocument(result);
          run.settled(single);
          return getManyDocument([{ ...single }], facts);
        } finally {
          await out.close();
        }
      });
      return single as GetJsonDocument;
    });

  return {
    whoami: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { getMe } = await import("../api/get-me.js");
        return (await getMe(run().http)).me;
      }),
    listPacks: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { listPacks } = await import("../api/list-packs.js");
        return listPacks(run().http);
      }),
    listAssets: (opts = {}) =>
      call({ signal: opts.signal }, async (run) => {
        const { listAssets } = await import("../api/list-assets.js");
        return listAssets(run().http);
      }),
    downloadPack: (slug, opts) => download("pack", slug, opts),
    downloadAsset: (slug, opts) => download("asset", slug, opts),
    sync: (dir, opts = {}) =>
      call(opts, async (services, deadline) => {
        const { runSync } = await import("../sync/run.js");
        const abs = absolute(dir);
        const head = { dir: abs };
        const sinks = { ...runSinks(opts), command: "packs sync", dir: abs, head };
        const doc = await withRun(sinks, options.onNotice, async (run) => {
          const { syncDocument } = await import("../sync/summary.js");
          let filtered = 0;
          run.describe({
            document: (items: SyncItemResult[]) =>
              syncDocument(abs, items, { filtered, deadline: deadline !== undefined }),
          });
          const { http, signal } = services();
          const synced = await runSync(
            http,
            {
              dir: abs,
              signal,
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
              prune: {
                prune: opts.prune === true,
                maxDelete: opts.maxDelete ?? DEFAULT_MAX_DELETE,
                today: new Date().toISOString().slice(0, 10),
              },
              ...(deadline ? { deadline } : {}),
            },
            progressFor(opts.onProgress),
            {
              selected: (selection) => {
                filtered = selection.left.length;
              },
              planned: () => run.begin(),
              itemFinished: (result) => run.settled(result),
            },
          );
          // stopped part-way by the deadline: the report says so, the call throws it
          if (deadline && (synced.summary.deferred ?? 0) > 0) throw deadline.error();
          return synced;
        });
        return doc;
      }),
    install: (opts = {}) =>
      call(opts, async (services, deadline) => {
        const [{ runInstall }, { installDocument }] = await Promise.all([
          import("../install/run.js"),
          import("../install/outcome.js"),
        ]);
        const cwd = absolute(opts.cwd);
        const manifest = opts.manifest ?? MANIFEST_FILE;
        const fetcher = createItemFetcher({
          services: async () => services(),
          progress: progressFor(opts.onProgress),
          ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        });
        const manifestPath = isAbsolute(manifest) ? manifest : join(cwd, manifest);
        const head = { manifest: manifestPath };
        const sinks = { ...runSinks(opts), command: "install", dir: dirname(manifestPath), head };
        return withRun(sinks, options.onNotice, async (run) => {
          deadline?.check();
          return runInstall(
            fetcher,
            {
              manifestPath,
              frozen: opts.frozen === true,
              update: opts.update,
              cacheDir: typeof opts.cacheDir === "string" ? absolute(opts.cacheDir) : undefined,
              extract: opts.extract === true,
              waitLock: opts.waitLock ?? 0,
              signal: opts.signal,
              ...(options.clock ? { clock: options.clock } : {}),
            },
            {
              ...(options.onNotice ? { notice: options.onNotice } : {}),
              planned: (m) =>
                run.describe({
                  document: (items: InstallItemResult[]) =>
                    installDocument(m, items, { deadline: deadline !== undefined }),
                }),
              itemFinished: (result) => run.settled(result),
            },
          );
        });
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

type ManyItems = GetManyDocument["items"];

/** The run sinks of a sync or install call (src/library/unattended.ts `withRun`). */
function runSinks(opts: RunOptions): Pick<LibraryRun, "file" | "metrics" | "onItem"> {
  return { file: opts.report, metrics: opts.metrics, onItem: opts.onItem };
}

/** `dir` made absolute against the working directory (default: the working directory). */
function absolute(dir: string | undefined): string {
  return resolve(process.cwd(), dir ?? ".");
}

/** The error of an operation cancelled through its AbortSignal. */
function abortedError(cause: unknown): SvcError {
  return new SvcError(
    "the operation was aborted through its AbortSignal; partial data is kept and the next call resumes it",
    { code: "aborted", cause },
  );
}
