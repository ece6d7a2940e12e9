import { Command } from "commander";
import type { DownloadResult } from "../../download/engine.js";
import type { Session } from "../../session.js";
import {
  addDownloadOptions,
  addRunOptions,
  examples,
  type OpenSession,
  type RunOutputFlags,
} from "../command-kit.js";

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
 * request id. With several slugs, see `runGetMany` (src/commands/get-many.ts). With `extract`,
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
  const { validateSlug } = await import("../../outdir/names.js");
  for (const slug of list) validateSlug(slug, "pack slug");
  if (opts.extract === true && opts.output === "-") {
    const { UsageError } = await import("../../errors/usage-error.js");
    throw new UsageError("--extract needs the ZIP on disk; it cannot be used with -o -", {
      hint: "Write the file with -o DIR/ to extract it.",
    });
  }
  const edition = opts.edition ?? "standard";
  const client = await session.http();
  const { packCatalog } = await import("../../api/pack-catalog.js");
  const catalog = packCatalog(client);
  const afterDownload = opts.extract === true ? extractAfter(session) : undefined;
  const items = list.map((slug) => ({
    item: { kind: "pack" as const, slug, edition },
    source: async () => {
      const { packSource } = await import("../../api/download-source.js");
      return packSource(client, catalog, slug, edition);
    },
  }));
  const sinks = { report: opts.report, metrics: opts.metrics, onItem: opts.onItem };
  if (items.length > 1 || Object.values(sinks).some((v) => v !== undefined)) {
    const { runGetMany } = await import("../get-many.js");
    await runGetMany(session, client, {
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
  const { runGet } = await import("../../download/run-get.js");
  await runGet(session, client, {
    ...only,
    output: opts.output,
    force: opts.force === true,
    ...(afterDownload ? { afterDownload } : {}),
  });
}

/**
 * The `--extract` step after a pack download: unpacks it (src/extract/extract.ts), says so on
 * stderr, and adds `extracted: {path, status: "extracted"|"unchanged", files}` to the document.
 */
function extractAfter(
  session: Session,
): (result: DownloadResult) => Promise<Record<string, unknown>> {
  return async (result) => {
    const [{ dirname }, { extractPack }] = await Promise.all([
      import("node:path"),
      import("../../extract/extract.js"),
    ]);
    const done = await extractPack({
      dir: dirname(result.path),
      file: result.file,
      sha256: result.sha256,
      signal: session.ctx.signal,
    });
    session.reporter.info(
      done.status === "unchanged"
        ? `${done.path}: already extracted from this archive`
        : `extracted ${done.files} file${done.files === 1 ? "" : "s"} into ${done.path}`,
    );
    return { extracted: { path: done.path, status: done.status, files: done.files } };
  };
}

/** Builds the `pack` noun with its `get` verb. */
export function packCommand(open: OpenSession): Command {
  const get = addRunOptions(
    addDownloadOptions(
      new Command("get")
        .description("download pack ZIPs you own (resumable, verified), one after another")
        .argument("<slug...>", "the packs' slugs (see `svc-dl packs list`)"),
      { edition: "which edition: standard (default) or authoring" },
    ).option(
      "--extract",
      "unpack each verified ZIP into DIR/<file name without .zip>/ (the ZIP is kept)",
    ),
  )
    .addHelpText(
      "after",
      `
With several slugs the packs are fetched one after another into one directory (-o DIR/,
default .); a failed pack is reported and the others go on (exit 1 at the end); a refused key
stops at once. --report, --metrics and --on-item (see \`svc-dl help install\`) make even one
slug such a run: -o then names a directory and --json prints {items, summary, complete}.
${examples(
  "svc-dl pack get forest-pack",
  "svc-dl pack get forest-pack desert-rocks -o ./assets/",
  "svc-dl pack get forest-pack --edition authoring -o ./assets/",
  "svc-dl pack get forest-pack --extract -o vendor/",
  "svc-dl pack get forest-pack -o forest.zip --force",
  "svc-dl pack get forest-pack -o - > forest.zip",
  "svc-dl pack get forest-pack --json | jq -r .sha256",
  "svc-dl pack get forest-pack desert-rocks -o ./assets/ --report get.json",
)}`,
    )
    .action(async (slugs: string[], opts: PackGetOptions, cmd: Command) => {
      await runPackGet(open(cmd), slugs, opts);
    });
  return new Command("pack")
    .description("download packs")
    .addCommand(get)
    .addHelpText("after", examples("svc-dl pack get forest-pack -o ./assets/"));
}
