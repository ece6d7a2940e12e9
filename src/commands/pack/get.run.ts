import { dirname } from "node:path";
import { packSource } from "../../api/download-source.js";
import { packCatalog } from "../../api/pack-catalog.js";
import type { DownloadResult } from "../../download/engine.js";
import { UsageError } from "../../errors/usage-error.js";
import { extractInstalledPack } from "../../install/extract.js";
import { validateSlug } from "../../outdir/names.js";
import { anySink, runSinks } from "../../run/sinks.js";
import type { Session } from "../../session.js";
import type { RunOutputFlags } from "../command-kit.js";
import { runGetMany } from "../shared/get-many.js";
import { runGet } from "../shared/get-one.js";

/** Options of `pack get`. */
export interface PackGetOptions extends RunOutputFlags {
  edition?: "standard" | "authoring";
  /** `-o PATH`. */
  output?: string;
  force?: boolean;
  /** `--extract`: unpack the verified ZIP into `<dir>/<file name without .zip>/`. */
  extract?: boolean;
}

/**
 * `svc-dl pack get <slug>... [--edition authoring] [-o PATH] [--force] [--extract]`
 * (cli-contract): downloads each pack ZIP from the `downloads.bundle` (or
 * `downloads.authoring`) URL of the pack's record (spec: clients use the given URLs). When a
 * slug is not owned (or has no authoring URL) it requests `/v1/packs/{slug}/download` anyway, so
 * the service's own error (`not_entitled`, `not_found`, `file_unavailable`) is shown with its
 * request id. With several slugs, see `runGetMany` (src/commands/shared/get-many.ts). With `extract`,
 * each verified ZIP is unpacked by `extractPack` (src/extract/extract.ts) while the directory
 * is still locked. Throws UsageError (exit 2) for a bad slug or `-o` (`-o -` with `--extract`),
 * and whatever the download engine and the extraction throw.
 */
export async function runPackGet(
  session: Session,
  slugs: string | string[],
  opts: PackGetOptions,
): Promise<void> {
  const list = typeof slugs === "string" ? [slugs] : slugs;
  for (const slug of list) validateSlug(slug, "pack slug");
  if (opts.extract === true && opts.output === "-") {
    throw new UsageError("--extract needs the ZIP on disk; it cannot be used with -o -", {
      hint: "Write the file with -o DIR/ to extract it.",
    });
  }
  const edition = opts.edition ?? "standard";
  const services = await session.services();
  const client = services.http;
  const catalog = packCatalog(client);
  const afterDownload = opts.extract === true ? extractAfter(session) : undefined;
  const items = list.map((slug) => ({
    item: { kind: "pack" as const, slug, edition },
    source: async () => {
      return packSource(client, catalog, slug, edition);
    },
  }));
  const sinks = runSinks(opts);
  if (items.length > 1 || anySink(sinks)) {
    await runGetMany(session, services, {
      command: "pack get",
      sinks,
      items,
      output: opts.output,
      force: opts.force === true,
      ...(afterDownload ? { afterDownload } : {}),
    });
    return;
  }
  const [only] = items;
  if (only === undefined) return;
  await runGet(session, services, {
    ...only,
    output: opts.output,
    force: opts.force === true,
    ...(afterDownload ? { afterDownload } : {}),
  });
}

/**
 * The `--extract` step after a pack download: unpacks it (`extractInstalledPack`, which loads
 * src/extract/ on first use, so a `pack get` without `--extract` never does), says so on stderr,
 * and adds `extracted: {path, status: "extracted"|"unchanged", files}` to the document.
 */
function extractAfter(
  session: Session,
): (result: DownloadResult) => Promise<Record<string, unknown>> {
  return async (result) => {
    const notice = (line: string): void => session.reporter.info(line);
    const extracted = await extractInstalledPack({
      dir: dirname(result.path),
      file: result.file,
      sha256: result.sha256,
      item: { kind: result.kind, slug: result.slug, edition: result.edition },
      notice,
      signal: session.ctx.signal,
    });
    if (extracted.status === "unchanged") {
      notice(`${extracted.path}: already extracted from this archive`);
    }
    return { extracted };
  };
}
