import { existsSync, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { MockService, RequestLogEntry } from "../../src/mock-server/types.js";
import { sha256Of } from "../helpers/files.js";

export { sha256Of };

/** What a convergence row knows: the directory, a sibling "outside" tree, and the served files. */
export interface ConvergeCtx {
  /** The directory `packs sync` keeps. */
  dir: string;
  /** A sibling directory holding files planted state must never reach. */
  outside: string;
  /** A directory synced once before (same umask) to copy a complete state from. */
  golden: string;
  /** Owned pack slugs in list order. */
  owned: string[];
  /** Server name, size and SHA-256 of each owned pack's standard edition. */
  served: Map<string, { filename: string; size: number; sha256: string }>;
}

/**
 * A comparable picture of a tree, never following links: for each entry its type, mode and
 * either its SHA-256 (files) or its target (links). `.svc-dl` is left out when `skipState`.
 */
export function snapshot(root: string, skipState = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    const abs = join(root, rel);
    for (const name of readdirSync(abs)) {
      const relPath = rel ? `${rel}/${name}` : name;
      if (skipState && relPath === ".svc-dl") continue;
      const st = lstatSync(join(root, relPath));
      const mode = (st.mode & 0o777).toString(8);
      if (st.isSymbolicLink()) out[relPath] = `link ${readlinkSync(join(root, relPath))}`;
      else if (st.isDirectory()) {
        out[relPath] = `dir ${mode}`;
        walk(relPath);
      } else out[relPath] = `file ${mode} ${sha256Of(join(root, relPath))}`;
    }
  };
  if (existsSync(root)) walk("");
  return out;
}

/** Download requests in the mock's log: the API download routes and every CDN file request. */
export function downloadRequests(mock: MockService): RequestLogEntry[] {
  return mock.requests.filter(
    (e) =>
      e.origin === "cdn" ||
      (e.origin === "api" && /^\/api\/v1\/(packs|assets)\/[^/]+\/download(\?|$)/.test(e.url)),
  );
}

/**
 * Problems with the modes of `<dir>/.svc-dl/`: the directory must be 0700 and every regular file
 * in it 0600, and no symlink may be left in it.
 */
export function stateDirProblems(dir: string): string[] {
  const stateDir = join(dir, ".svc-dl");
  if (!existsSync(stateDir)) return [];
  const problems: string[] = [];
  const st = lstatSync(stateDir);
  if (!st.isDirectory() || (st.mode & 0o777) !== 0o700) {
    problems.push(`.svc-dl mode ${(st.mode & 0o777).toString(8)}`);
  }
  for (const name of readdirSync(stateDir)) {
    const e = lstatSync(join(stateDir, name));
    if (e.isSymbolicLink()) problems.push(`.svc-dl/${name} is a symlink`);
    else if (e.isFile() && (e.mode & 0o777) !== 0o600) {
      problems.push(`.svc-dl/${name} mode ${(e.mode & 0o777).toString(8)}`);
    }
  }
  return problems;
}
