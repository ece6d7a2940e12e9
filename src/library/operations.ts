import { dirname, isAbsolute, join, resolve } from "node:path";
import type { GetJsonDocument } from "../documents/parts.js";
import type { VerifyDocument } from "../documents/runs.js";
import { type GetManyDocument, getManyDocument, toJsonDocument } from "../download/document.js";
import { createItemFetcher } from "../install/fetch-item.js";
import { MANIFEST_FILE } from "../install/manifest.js";
import type { InstallDocument, InstallItemResult } from "../install/types.js";
import { validateSlug } from "../outdir/names.js";
import { OutputDir } from "../outdir/output-dir.js";
import type { Deadline } from "../pacing/deadline.js";
import type { Services } from "../services.js";
import { DEFAULT_MAX_DELETE } from "../sync/prune.js";
import { syncDocument } from "../sync/summary.js";
import type { SyncDocument, SyncItemResult } from "../sync/types.js";
import { progressFor } from "./progress.js";
import type {
  CallOptions,
  ClientOptions,
  DownloadOptions,
  InstallOptions,
  PacingOptions,
  RunOptions,
  SyncOptions,
  VerifyOptions,
} from "./types.js";
import { type LibraryRun, withRun } from "./unattended.js";

/**
 * Runs one library operation (src/library/client.ts): its services (HTTP client, the run's
 * clock and signal) built on first use by `run()`, `deadline` its `maxDuration` window; closed
 * afterwards, an abort mapped to `aborted`.
 */
export type Call = <T>(
  opts: CallOptions & PacingOptions,
  op: (run: () => Services, deadline: Deadline | undefined) => Promise<T>,
) => Promise<T>;

/** What every operation of one client runs with. */
export interface OperationContext {
  options: ClientOptions;
  call: Call;
}

/**
 * `downloadPack` / `downloadAsset` (cli-contract "Downloads"): one item into `opts.dir` with the
 * CLI's engine, the directory locked for the call; with `report`/`metrics`, the one-slug run
 * document as `pack get --report` writes it. Returns the `pack get --json` document.
 */
export function downloadOne(
  ctx: OperationContext,
  kind: "pack" | "asset",
  slug: string,
  opts: DownloadOptions = {},
): Promise<GetJsonDocument> {
  return ctx.call(opts, async (services, deadline) => {
    deadline?.check();
    validateSlug(slug, `${kind} slug`);
    const fetcher = createItemFetcher({
      services: async () => services(),
      progress: progressFor(opts.onProgress),
      ...(ctx.options.onNotice ? { onNotice: ctx.options.onNotice } : {}),
    });
    const edition = kind === "pack" ? (opts.edition ?? "standard") : null;
    const dir = absolute(opts.dir);
    // a report or metrics file holds the one-slug run document, as `pack get --report` writes
    const sinks = { file: opts.report, metrics: opts.metrics, command: `${kind} get`, dir };
    const facts = { deadline: deadline !== undefined };
    let single: GetJsonDocument | undefined;
    await withRun({ ...sinks, head: {} }, ctx.options.onNotice, async (run) => {
      run.describe({ document: (items: ManyItems) => getManyDocument(items, facts) });
      const out = await OutputDir.open(dir, {
        waitSeconds: opts.waitLock ?? 0,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(ctx.options.clock ? { clock: ctx.options.clock } : {}),
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
}

/** `sync(dir)` (cli-contract "packs sync"): the CLI's `runSync`, with its run document sinks. */
export function syncDir(
  ctx: OperationContext,
  dir: string,
  opts: SyncOptions = {},
): Promise<SyncDocument> {
  return ctx.call(opts, async (services, deadline) => {
    const { runSync } = await import("../sync/run.js");
    const abs = absolute(dir);
    const head = { dir: abs };
    const sinks = { ...runSinks(opts), command: "packs sync", dir: abs, head };
    const doc = await withRun(sinks, ctx.options.onNotice, async (run) => {
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
  });
}

/** `install()` (cli-contract "install"): the CLI's `runInstall`, with its run document sinks. */
export function installManifest(
  ctx: OperationContext,
  opts: InstallOptions = {},
): Promise<InstallDocument> {
  return ctx.call(opts, async (services, deadline) => {
    const [{ runInstall }, { installDocument }] = await Promise.all([
      import("../install/run.js"),
      import("../install/outcome.js"),
    ]);
    const cwd = absolute(opts.cwd);
    const manifest = opts.manifest ?? MANIFEST_FILE;
    const fetcher = createItemFetcher({
      services: async () => services(),
      progress: progressFor(opts.onProgress),
      ...(ctx.options.onNotice ? { onNotice: ctx.options.onNotice } : {}),
    });
    const manifestPath = isAbsolute(manifest) ? manifest : join(cwd, manifest);
    const head = { manifest: manifestPath };
    const sinks = { ...runSinks(opts), command: "install", dir: dirname(manifestPath), head };
    return withRun(sinks, ctx.options.onNotice, async (run) => {
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
          ...(ctx.options.clock ? { clock: ctx.options.clock } : {}),
        },
        {
          ...(ctx.options.onNotice ? { notice: ctx.options.onNotice } : {}),
          planned: (m) =>
            run.describe({
              document: (items: InstallItemResult[]) =>
                installDocument(m, items, { deadline: deadline !== undefined }),
            }),
          itemFinished: (result) => run.settled(result),
        },
      );
    });
  });
}

/**
 * `verify(dir)` (cli-contract "verify", "Integrity"): the CLI's verify run (src/verify/run.ts),
 * with its run document sinks; a repair that fails for its item alone is a `warning:` notice
 * and that item's `error` in the document.
 */
export function verifyDirectory(
  ctx: OperationContext,
  dir: string,
  opts: VerifyOptions = {},
): Promise<VerifyDocument> {
  return ctx.call(opts, async (services, deadline) => {
    const [{ verifyRun }, { notOk }] = await Promise.all([
      import("../verify/run.js"),
      import("../verify/document.js"),
    ]);
    const abs = absolute(dir);
    const head = { dir: abs };
    const sinks = { ...runSinks(opts), command: "verify", dir: abs, head };
    const { onNotice } = ctx.options;
    const failures = (doc: VerifyDocument) => notOk(doc);
    return withRun({ ...sinks, failures }, onNotice, (run) =>
      verifyRun(
        {
          dir: abs,
          repair: opts.repair,
          forgetMissing: opts.forgetMissing,
          waitLock: opts.waitLock,
          signal: opts.signal,
          clock: ctx.options.clock,
          deadline,
          services: async () => services(),
          progress: async () => progressFor(opts.onProgress),
        },
        run,
        {
          ...(onNotice ? { notice: onNotice } : {}),
          repairFailed: (item, error) =>
            onNotice?.(`warning: cannot repair ${item.path}: ${error.message} (${error.code})`),
        },
      ),
    );
  });
}

type ManyItems = GetManyDocument["items"];

/** The run sinks of a sync or install call (src/library/unattended.ts `withRun`). */
function runSinks(opts: RunOptions): Pick<LibraryRun, "file" | "metrics" | "onItem"> {
  return { file: opts.report, metrics: opts.metrics, onItem: opts.onItem };
}

/** `dir` made absolute against the working directory (default: the working directory). */
export function absolute(dir: string | undefined): string {
  return resolve(process.cwd(), dir ?? ".");
}
