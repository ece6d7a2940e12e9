import { PassThrough } from "node:stream";
import { downloadItem } from "../../src/download/engine.js";
import type { HttpClient } from "../../src/http/client.js";
import { createProgress } from "../../src/io/progress.js";
import type { MockService } from "../../src/mock-server/index.js";
import { OutputDir } from "../../src/outdir/output-dir.js";
import { tempDir } from "./files.js";

export { sha256Of, tempDir } from "./files.js";

/** The environment that points the CLI at `mock` with its demo key. */
export function envFor(mock: MockService): Record<string, string> {
  return { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
}

/** Requests the mock's CDN origin answered with a body (file downloads). */
export function cdnRequests(mock: MockService): MockService["requests"] {
  return mock.requests.filter((r) => r.origin === "cdn");
}

/** ESC: any cursor-control or colour sequence starts with it. */
export const ESC = "\u001b";

/**
 * Downloads asset `slug` in-process with `http` (its `assets/<slug>/download` route) into a fresh
 * temp directory, quietly: the outcome (or the error thrown) and the directory.
 */
export async function downloadAssetWith(
  http: HttpClient,
  slug: string,
): Promise<{ outcome: unknown; dir: string }> {
  const dir = tempDir("svc-dl-asset-");
  const progress = await createProgress({
    stderr: new PassThrough(),
    isTTY: false,
    progress: false,
    quiet: true,
  });
  const out = await OutputDir.open(dir);
  try {
    const outcome = await downloadItem(http, {
      kind: "asset",
      slug,
      edition: null,
      source: { url: http.apiUrl(`assets/${slug}/download`) },
      out,
      progress,
    }).catch((e: unknown) => e);
    return { outcome, dir };
  } finally {
    await out.close();
  }
}
