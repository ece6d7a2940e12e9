import { dirname, resolve } from "node:path";
import { cacheDirFrom } from "../../cache/location.js";
import { createItemFetcher } from "../../install/fetch-item.js";
import { describeChange } from "../../install/lock-compare.js";
import type { Manifest } from "../../install/manifest.js";
import { InstallError, installDocument } from "../../install/outcome.js";
import { runInstall } from "../../install/run.js";
import type { InstallDocument, InstallItemResult } from "../../install/types.js";
import { counted } from "../../io/plural.js";
import type { WarningCode } from "../../io/reporter.js";
import type { RunRecorder, RunShape } from "../../run/recorder.js";
import type { Session } from "../../session.js";
import type { RunOutputFlags } from "../command-kit.js";
import { recordRun, runSinks } from "../shared/record-run.js";

/** Options of `install` (after parsing). */
export interface InstallCommandOptions extends RunOutputFlags {
  frozen?: boolean;
  /** `--update` alone: true; `--update SLUG...`: the slugs. */
  update?: boolean | string[];
  /** `--manifest FILE`; default `svc-dl.json` in the working directory. */
  manifest?: string;
  /** False with `--no-cache`. */
  cache: boolean;
  extract?: boolean;
}

/**
 * `svc-dl install [--frozen | --update [SLUG...]] [--manifest FILE] [--no-cache] [--extract]`
 * (cli-contract "Manifest, lock and cache"): a thin layer over `runInstall` (src/install/run.ts). The HTTP
 * client, and so the API key, is resolved only when an item needs the network: `install
 * --frozen` with every locked item in `dir` or the cache needs no key; a base URL that is set is
 * checked before any item (an invalid one exits 2 as in every command). Human output:
 * one line per item, one per changed lock entry (with `--update`, "no change" when none) and a
 * summary on stderr; `--json` prints the contract's document on stdout
 * (also before a `lock_mismatch` or `install_incomplete` error). Throws what `runInstall` throws.
 */
export async function runInstallCommand(
  session: Session,
  opts: InstallCommandOptions,
): Promise<void> {
  const manifestPath = resolve(session.ctx.cwd, opts.manifest ?? "svc-dl.json");
  const sinks = runSinks(opts);
  const spec = { command: "install", dir: dirname(manifestPath), sinks };
  await recordRun(session, spec, async (run) => {
    run.head.manifest = manifestPath;
    await install(session, manifestPath, opts, run);
  });
}

/** The body of {@link runInstallCommand}, feeding `run` with each settled item. */
async function install(
  session: Session,
  manifestPath: string,
  opts: InstallCommandOptions,
  run: RunRecorder,
): Promise<void> {
  const { ctx, globals, reporter } = session;
  // A base URL that is given is checked before any item (exit 2, the message of every
  // command). None at all is only an error once an item needs the network (a warm cache does
  // not); that error then stops the run, as every configuration error does.
  await session.baseUrl().catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== "no_base_url") throw err;
  });
  const progress = await session.progress();
  const notice = (line: string): void => reporter.info(line);
  const services = () => session.services();
  const fetcher = createItemFetcher({ services, progress, onNotice: notice });
  const cacheDir = opts.cache ? await cacheDirFrom(ctx.env, ctx.cwd) : undefined;
  try {
    const doc = await runInstall(
      fetcher,
      {
        manifestPath,
        frozen: opts.frozen === true,
        update: opts.update,
        cacheDir,
        extract: opts.extract === true,
        waitLock: globals.waitLock,
        signal: ctx.signal,
        clock: ctx.clock,
        deadline: session.deadline,
        hints: session.hints,
      },
      {
        planned: (m) => {
          run.dir = m.dir;
          run.describe(installShape(m, session.deadline !== undefined, installDocument));
          run.begin();
          const n = m.items.length;
          reporter.info(`${counted(n, "item")} declared in ${m.path}; installing into ${m.dir}`);
        },
        itemFinished: (r) => {
          run.settled(r);
          // A file fetched over the network already has its line from the progress output.
          if (r.status === "failed" && r.error) {
            reporter.warn(r.error.code as WarningCode, itemLine(r), itemLine(r));
            if (r.error.hint) reporter.hint(r.error.hint);
          } else if (r.source !== "network" || r.status === "lock-mismatch") notice(itemLine(r));
        },
        notice,
      },
    );
    const full = run.complete(doc);
    if (globals.json) session.printJson(full);
    const changes = doc.lock_changes.map((c) => describeChange(c));
    if (changes.length === 0 && opts.update !== undefined) {
      changes.push("svc-dl.lock unchanged: the service serves the files it names");
    }
    for (const line of changes) notice(line);
    reporter.info(summaryLine(doc));
  } catch (err) {
    if (err instanceof InstallError && err.document) {
      const full = run.complete(err.document);
      if (globals.json) session.printJson(full);
    }
    throw err;
  } finally {
    progress.stop();
  }
}

/** The install's document and closing line, for a run stopped part-way (src/run/recorder.ts). */
function installShape(
  manifest: Manifest,
  deadline: boolean,
  document: typeof installDocument,
): RunShape<InstallItemResult, InstallDocument> {
  return { document: (items) => document(manifest, items, { deadline }), summaryLine };
}

/**
 * The closing stderr line: `installed 3 items: 1 downloaded, 1 from the cache, 1 already in
 * place`, then the failed, mismatched and deferred counts when there are any.
 */
function summaryLine(doc: InstallDocument): string {
  const s = doc.summary;
  const n = doc.items.length;
  const parts = [
    `${s.downloaded} downloaded`,
    `${s.from_cache} from the cache`,
    `${s.up_to_date} already in place`,
  ];
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  if (s.lock_mismatch > 0) parts.push(`${s.lock_mismatch} differing from svc-dl.lock`);
  if (s.deferred) parts.push(`${s.deferred} deferred to the next run`);
  return `installed ${counted(n, "item")}: ${parts.join(", ")}`;
}

/** One stderr line per settled item: `pack forest-pack (standard): downloaded (network)`. */
function itemLine(r: InstallItemResult): string {
  const what =
    r.kind === "pack" ? `pack ${r.slug} (${r.edition ?? "standard"})` : `asset ${r.slug}`;
  if (r.status === "failed") {
    const e = r.error;
    const id = e?.request_id ? `, request id ${e.request_id}` : "";
    return `${what}: failed: ${e?.message ?? "error"} (${e?.code ?? "error"}${id})`;
  }
  if (r.status === "deferred") return `${what}: deferred to the next run (--max-duration)`;
  if (r.status === "lock-mismatch") return `${what}: lock mismatch: ${r.reason ?? ""}`;
  const from = { local: "already in dir", cache: "from the cache", network: "from the network" };
  return `${what}: ${r.status} (${r.source ? from[r.source] : "unknown source"})`;
}
