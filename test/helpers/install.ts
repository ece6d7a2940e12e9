import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { type CliResult, runCli } from "./cli.js";

/** The `install --json` document, as tests read it. */
export interface InstallDoc {
  manifest: string;
  lock: string;
  dir: string;
  items: {
    kind: string;
    slug: string;
    edition: string | null;
    status: string;
    source: string | null;
    path: string | null;
    sha256: string | null;
    bytes: number | null;
    reason: string | null;
    error: { code: string } | null;
  }[];
  summary: Record<string, number>;
}

/** A project directory with `svc-dl.json` and its own cache directory. */
export interface Project {
  root: string;
  cache: string;
}

/** The manifest the install tests use: two packs (one authoring) and one asset. */
export const MANIFEST = {
  dir: "vendor/assets",
  packs: ["sci-fi-props", { slug: "low-poly-forest", edition: "authoring" }],
  assets: ["free-sample-cube"],
};

/** Creates a temp project holding `manifest` as svc-dl.json, and a fresh cache directory. */
export function makeProject(manifest: unknown = MANIFEST): Project {
  const root = mkdtempSync(join(tmpdir(), "svc-dl-install-"));
  writeFileSync(join(root, "svc-dl.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const cache = mkdtempSync(join(tmpdir(), "svc-dl-cache-"));
  return { root, cache };
}

/** Runs `svc-dl install --json …` in the project with the mock's key and the project's cache. */
export function install(
  mock: MockService,
  project: Project,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runCli(["install", "--json", ...args], {
    cwd: project.root,
    env: {
      SVC_BASE_URL: mock.baseUrl,
      SVC_API_KEY: mock.apiKey,
      SVC_DL_CACHE_DIR: project.cache,
      ...env,
    },
  });
}

/** Requests that fetched file bytes: the API download routes and every CDN request. */
export function downloadRequests(mock: MockService): RequestLogEntry[] {
  return mock.requests.filter((r) => r.origin === "cdn" || r.url.includes("/download"));
}

/** Every file in a cache's `sha256/` tree (its entries). */
export function cachedFiles(cache: string): string[] {
  const root = join(cache, "sha256");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) => readdirSync(join(root, d)).map((f) => join(root, d, f)));
}
