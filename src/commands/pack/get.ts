import { Command } from "commander";
import type { HttpClient } from "../../api/http.js";
import type { DownloadSource } from "../../download/engine.js";
import type { Session } from "../../session.js";
import { addDownloadOptions, examples, type OpenSession } from "../command-kit.js";

/** Options of `pack get`. */
export interface PackGetOptions {
  edition?: "standard" | "authoring";
  /** `-o PATH`. */
  output?: string;
  force?: boolean;
}

/**
 * `svc-dl pack get <slug> [--edition authoring] [-o PATH] [--force]` (cli-contract): downloads
 * the pack ZIP from the `downloads.bundle` (or `downloads.authoring`) URL of the pack's record
 * (spec: clients use the given URLs). When the slug is not owned (or has no authoring URL) it
 * requests `/v1/packs/{slug}/download` anyway, so the service's own error (`not_entitled`,
 * `not_found`, `file_unavailable`) is shown with its request id. Throws UsageError (exit 2) for
 * a bad slug, and whatever the download engine throws.
 */
export async function runPackGet(
  session: Session,
  slug: string,
  opts: PackGetOptions,
): Promise<void> {
  const { validateSlug } = await import("../../download/names.js");
  validateSlug(slug, "pack slug");
  const edition = opts.edition ?? "standard";
  const client = await session.http();
  const { runGet } = await import("../../download/run-get.js");
  await runGet(session, client, {
    item: { kind: "pack", slug, edition },
    source: () => packDownloadSource(client, slug, edition),
    output: opts.output,
    force: opts.force === true,
  });
}

/**
 * The download request of a pack edition: the URL from the pack's record (`downloads.bundle` /
 * `downloads.authoring`, every page of `/v1/packs` searched), else the API route
 * `/v1/packs/{slug}/download[?edition=authoring]` so the service answers with its own error.
 * Throws ResponseError (exit 7) when the record's URL is not a URL, and the listing's errors.
 */
async function packDownloadSource(
  client: HttpClient,
  slug: string,
  edition: "standard" | "authoring",
): Promise<DownloadSource> {
  const { listPacks } = await import("../../api/list-packs.js");
  const pack = (await listPacks(client)).find((p) => p.slug === slug);
  const given = edition === "authoring" ? pack?.downloads.authoring : pack?.downloads.bundle;
  let url: URL;
  if (given !== undefined) {
    try {
      url = new URL(given, client.baseUrl);
    } catch (err) {
      const { ResponseError } = await import("../../errors/response-error.js");
      throw new ResponseError(
        `the pack record's download URL is not a URL: ${given.slice(0, 80)}`,
        {
          httpStatus: null,
          requestId: null,
          cause: err,
        },
      );
    }
  } else {
    url = client.apiUrl(
      `packs/${encodeURIComponent(slug)}/download`,
      edition === "authoring" ? { edition: "authoring" } : {},
    );
  }
  return { url };
}

/** Builds the `pack` noun with its `get` verb. */
export function packCommand(open: OpenSession): Command {
  const get = addDownloadOptions(
    new Command("get")
      .description("download a pack ZIP you own (resumable, verified)")
      .argument("<slug>", "the pack's slug (see `svc-dl packs list`)"),
    { edition: "which edition: standard (default) or authoring" },
  )
    .addHelpText(
      "after",
      examples(
        "svc-dl pack get forest-pack",
        "svc-dl pack get forest-pack --edition authoring -o ./assets/",
        "svc-dl pack get forest-pack -o forest.zip --force",
        "svc-dl pack get forest-pack -o - > forest.zip",
        "svc-dl pack get forest-pack --json | jq -r .sha256",
      ),
    )
    .action(async (slug: string, opts: PackGetOptions, cmd: Command) => {
      await runPackGet(open(cmd), slug, opts);
    });
  return new Command("pack")
    .description("download one pack")
    .addCommand(get)
    .addHelpText("after", examples("svc-dl pack get forest-pack -o ./assets/"));
}
