import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "./cli.js";

/** One item of the `packs sync --json` document (cli-contract "JSON documents"). */
export interface SyncItem {
  slug: string;
  edition: string;
  status: string;
  reason: string | null;
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  error: {
    code: string;
    message: string;
    http_status: number | null;
    request_id: string | null;
  } | null;
}

/** The `packs sync --json` document. */
export interface SyncDoc {
  dir: string;
  items: SyncItem[];
  summary: { downloaded: number; up_to_date: number; failed: number };
}

/**
 * Starts a mock service for sync tests: packs of `packSize` bytes and a download quota far above
 * the spec's 30 a minute (these files make many downloads; pacing has its own test). Returns
 * the mock, the CLI environment of the demo key, and the slugs it owns in list order.
 */
export async function startSyncMock(
  packSize: number,
): Promise<{ mock: MockService; env: Record<string, string>; owned: string[] }> {
  const mock = await startMockService({
    quiet: true,
    packSize,
    limits: { download: { quota: 1000, windowSeconds: 60 } },
  });
  const env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
  const r = await runCli(["packs", "list", "--json"], { env });
  const owned = (JSON.parse(r.stdout) as { slug: string }[]).map((p) => p.slug);
  return { mock, env, owned };
}
