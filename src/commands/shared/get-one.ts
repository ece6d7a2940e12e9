import { toJsonDocument } from "../../download/document.js";
import { type DownloadResult, type DownloadSource, downloadItem } from "../../download/engine.js";
import { downloadToStream } from "../../download/stdout.js";
import { interruptedBy } from "../../errors/interrupted-error.js";
import type { SvcError } from "../../errors/svc-error.js";
import { UsageError } from "../../errors/usage-error.js";
import type { HttpResponse } from "../../http/request-types.js";
import { refuseBinaryToTerminal } from "../../io/binary-guard.js";
import { resolveDestination } from "../../outdir/destination.js";
import { OutputDir } from "../../outdir/output-dir.js";
import type { ItemRef } from "../../outdir/state.js";
import type { Services } from "../../services.js";
import type { Session } from "../../session.js";

/** What one `get` command downloads and where. */
export interface GetRequest {
  item: ItemRef;
  /** The request, or a function that finds it (called once the directory is locked). */
  source: DownloadSource | (() => Promise<DownloadSource>);
  /** `-o PATH` as given. */
  output: string | undefined;
  force: boolean;
  errorFromResponse?: (res: HttpResponse) => Promise<SvcError>;
  /**
   * Runs after a download into a directory (not `-o -`), with the directory lock still held
   * (`--extract`); the members it returns are added to the `--json` document.
   */
  afterDownload?: (result: DownloadResult) => Promise<Record<string, unknown>>;
}

/**
 * Runs one download for a `get` command: resolves `-o`, picks the progress output, locks the
 * directory (before `source` is resolved, so a locked directory costs no request), calls the
 * engine (or streams to stdout for `-o -`), then prints the result: `--json` → the contract's
 * document on stdout; otherwise the final path on stdout (nothing for `-o -`), with the
 * per-file line on stderr. Throws UsageError when `-o -` is combined with `--json` (both
 * would use stdout) and `binary_to_terminal` for `-o -` while stdout is a terminal (both before
 * any request), and whatever the engine throws.
 */
export async function runGet(
  session: Session,
  services: Services,
  req: GetRequest,
): Promise<DownloadResult> {
  const { ctx, globals } = session;
  const { http: client, signal, clock } = services;
  const destination = resolveDestination(req.output, ctx.cwd);
  if (destination.kind === "stdout" && globals.json) {
    throw new UsageError("-o - and --json both need stdout; use one of them", {
      hint: "Write the file with -o PATH to get the --json document.",
    });
  }
  if (destination.kind === "stdout") refuseBinaryToTerminal(ctx.io);
  const progress = await session.progress();
  const onNotice = (line: string): void => session.reporter.info(line);
  // Lock first, so a second run on the same directory stops before any request.
  const out =
    destination.kind === "file"
      ? await OutputDir.open(destination.dir, {
          waitSeconds: globals.waitLock,
          onWait: onNotice,
          ...(signal ? { signal } : {}),
          clock,
        })
      : undefined;
  let result: DownloadResult;
  let extra: Record<string, unknown> = {};
  try {
    const source = typeof req.source === "function" ? await req.source() : req.source;
    const common = {
      ...req.item,
      source,
      progress,
      onNotice,
      signal,
      ...(req.errorFromResponse ? { errorFromResponse: req.errorFromResponse } : {}),
    };
    if (destination.kind === "stdout" || !out) {
      result = await downloadToStream(client, { ...common, out: ctx.io.stdout });
    } else {
      result = await downloadItem(client, {
        ...common,
        out,
        ...(destination.fileName !== undefined ? { fileName: destination.fileName } : {}),
        force: req.force,
      });
      if (req.afterDownload) extra = await req.afterDownload(result);
    }
  } catch (err) {
    if (signal?.aborted) throw interruptedBy(signal);
    throw err;
  } finally {
    progress.stop();
    await out?.close();
  }
  if (globals.json) session.printJson({ ...toJsonDocument(result), ...extra });
  else if (destination.kind !== "stdout") session.print(result.path);
  return result;
}
