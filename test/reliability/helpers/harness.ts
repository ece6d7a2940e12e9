import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { MockService } from "../../../src/mock-server/index.js";
import { type CliResult, registerSecret, runCli, spawnCli } from "../../helpers/cli.js";
import { sha256, sha256Of, tempDir } from "../../helpers/files.js";
import { scanTreeForSecrets } from "./secret-scan.js";

export { sha256, sha256Of, tempDir };

/** Environment pointing the CLI at `mock` with its demo API key; registers both demo keys as secrets. */
export function envFor(mock: MockService): Record<string, string> {
  registerSecret(mock.apiKey);
  registerSecret(mock.licenseKey);
  return { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
}

/** Every path under `root` (files, directories, symlinks), relative, sorted; `[]` when absent. */
export function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      out.push(relative(root, path));
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

/** Entries of `dir` other than the `.svc-dl` bookkeeping directory (the "final paths"). */
export function finalFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f !== ".svc-dl") : [];
}

/** The `--json` error document svc-dl writes as the last stderr line. */
export interface ErrorDoc {
  code: string;
  message: string;
  http_status: number | null;
  request_id: string | null;
  retryable: boolean;
  hint: string | null;
}

/** A CLI run with its parsed `--json` documents and the directories it was checked in. */
export interface Run extends CliResult {
  /** stdout parsed as JSON when the run succeeded with `--json`. */
  doc: Record<string, unknown> | undefined;
  /** The `--json` error document from stderr, when the run failed with `--json`. */
  error: ErrorDoc | undefined;
  /** The config directory the run used. */
  configDir: string;
}

/** Options of {@link run}. */
export interface RunOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  input?: string;
  timeoutMs?: number;
  /** Config directory (default a fresh one); scanned for secrets after the run. */
  configDir?: string;
  /** More directories to scan for secrets after the run (cwd and the config dir always are). */
  scan?: string[];
}

/**
 * Runs the CLI through `runCli` (in-process; a run with NODE_OPTIONS, e.g. the ENOSPC preload,
 * is spawned instead), which scans stdout and stderr for every registered full key, then scans every file under `cwd`, the config directory and `scan` with
 * {@link scanTreeForSecrets} (state files, partial metadata, config files), and parses the
 * `--json` success or error document. Throws when a secret is found anywhere.
 */
export async function run(args: string[], opts: RunOptions): Promise<Run> {
  const configDir = opts.configDir ?? tempDir("svc-dl-rel-config-");
  // A preload (NODE_OPTIONS) takes effect only in a process of its own.
  const runner = opts.env.NODE_OPTIONS ? spawnCli : runCli;
  const r = await runner(args, {
    env: { ...opts.env, SVC_DL_CONFIG_DIR: configDir },
    cwd: opts.cwd,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
  for (const dir of [opts.cwd, configDir, ...(opts.scan ?? [])]) scanTreeForSecrets(dir);
  let doc: Record<string, unknown> | undefined;
  let error: ErrorDoc | undefined;
  if (args.includes("--json")) {
    if (r.code === 0 && r.stdout.trim() !== "") {
      doc = JSON.parse(r.stdout) as Record<string, unknown>;
    }
    const last = r.stderr.trim().split("\n").at(-1) ?? "";
    if (r.code !== 0 && last.startsWith("{")) {
      error = (JSON.parse(last) as { error: ErrorDoc }).error;
    }
  }
  return { ...r, doc, error, configDir };
}

/** One item of `<dir>/.svc-dl/state.json`. */
export interface StateEntry {
  kind: string;
  slug: string;
  edition: string | null;
  file: string;
  size: number;
  etag: string | null;
  sha256: string;
}

/** The items of `<dir>/.svc-dl/state.json` (empty when there is none). */
export function stateItems(dir: string): Record<string, StateEntry> {
  const path = join(dir, ".svc-dl", "state.json");
  if (!existsSync(path)) return {};
  return (JSON.parse(readFileSync(path, "utf8")) as { items: Record<string, StateEntry> }).items;
}

/** Partial data files (`*.part`) in `<dir>/.svc-dl/` with their sizes in bytes. */
export function partFiles(dir: string): { name: string; bytes: number }[] {
  const stateDir = join(dir, ".svc-dl");
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir)
    .filter((f) => f.endsWith(".part"))
    .map((name) => ({ name, bytes: lstatSync(join(stateDir, name)).size }));
}

/**
 * The promise checked after every row: every final path in `dir` is a complete file whose
 * SHA-256 is one of `goodSha256` (never partial, never corrupt), and every state record names
 * an existing file with exactly the recorded size and hash, or a file that is absent.
 * Returns a description of the first violation, or undefined.
 */
export function finalPathProblem(dir: string, goodSha256: readonly string[]): string | undefined {
  for (const name of finalFiles(dir)) {
    const path = join(dir, name);
    if (!lstatSync(path).isFile()) return `${name} is not a regular file`;
    const hash = sha256Of(path);
    if (!goodSha256.includes(hash)) return `${name} holds bytes that are not the served file`;
  }
  for (const [name, item] of Object.entries(stateItems(dir))) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    if (bytes.length !== item.size)
      return `${name}: recorded size ${item.size}, on disk ${bytes.length}`;
    if (sha256(bytes) !== item.sha256) return `${name}: recorded hash differs from the bytes`;
  }
  return undefined;
}

/**
 * The exact bytes the mock serves now for a pack edition or an asset, fetched directly (not
 * through svc-dl) from its API route, redirect to the CDN followed.
 */
export async function servedBytes(
  mock: MockService,
  ref: { kind: "pack" | "asset"; slug: string },
): Promise<Buffer> {
  const res = await fetch(`${mock.baseUrl}/api/v1/${ref.kind}s/${ref.slug}/download`, {
    headers: { authorization: `Bearer ${mock.apiKey}` },
  });
  if (res.status !== 200) throw new Error(`served bytes: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}
