import { renameSync } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { SvcError } from "../errors/svc-error.js";
import { containedPath } from "../io/containment.js";
import { ensureOwnedDirs } from "../io/owned-dir.js";
import { counted } from "../io/plural.js";
import { lstatIfExists } from "../io/safe-fs.js";
import { checkRecordedFile } from "../outdir/local-file.js";
import type { OutputDir } from "../outdir/output-dir.js";
import type { StateItem } from "../outdir/state.js";
import type { SyncItemResult, SyncStatus } from "./types.js";

/** Default of `--max-delete`: most files one `--prune` run moves to the trash. */
export const DEFAULT_MAX_DELETE = 20;

/** What `packs sync` does with files recorded for packs no longer owned. */
export interface PruneOptions {
  /** `--prune`: move them to `.svc-dl/trash/<UTC date>/`; without it they are reported `not-owned`. */
  prune: boolean;
  /** `--max-delete N`: more than N to move → nothing moves, exit 1 `prune_limit`. */
  maxDelete: number;
  /** `--dry-run`: report `would-prune`, move nothing. */
  dryRun: boolean;
  /** The UTC date of the trash folder (`YYYY-MM-DD`). */
  today: string;
  signal?: AbortSignal | undefined;
}

/**
 * The prune step of `packs sync` (cli-contract "Operating unattended"), called only after every
 * page of the listing arrived: the pack files DIR's `.svc-dl/` records for slugs not in `owned`
 * (the whole listing, before `--include`/`--exclude`). A file whose bytes no longer match its
 * record is `kept-modified` (never moved); a missing one is left alone; files the user named
 * (`-o FILE`) and files svc-dl never recorded are never candidates. With `prune`, the others
 * move (never deleted) to `DIR/.svc-dl/trash/<date>/` under their names (`pruned`, record
 * dropped); more than `maxDelete` → SvcError `prune_limit` (exit 1) and nothing moves. The
 * trash is made by svc-dl inside `.svc-dl/` through the containment rule (src/io/owned-dir.ts
 * `ensureOwnedDirs`: each level created here or an existing plain directory, never a symlink):
 * a symlink, file or anything else at `.svc-dl/trash` or its date folder is FileSystemError
 * `unsafe_state_dir` (exit 8) before any file moves. The caller passes `prune: false` when the
 * listing is not complete and consistent (src/sync/run.ts).
 */
export async function pruneStep(
  out: OutputDir,
  owned: ReadonlySet<string>,
  opts: PruneOptions,
): Promise<SyncItemResult[]> {
  const stale = out
    .records()
    .filter((r) => r.kind === "pack" && r.fixed_name !== true && !owned.has(r.slug));
  if (!opts.prune) return stale.map((r) => result(out, r, "not-owned"));
  const movable: StateItem[] = [];
  const results: SyncItemResult[] = [];
  for (const rec of stale) {
    const { verdict } = await checkRecordedFile(out.dir, rec, true, opts.signal);
    if (verdict === "changed") results.push(result(out, rec, "kept-modified"));
    else if (verdict === "intact") movable.push(rec);
  }
  if (movable.length > opts.maxDelete) {
    throw new SvcError(
      `--prune would move ${counted(movable.length, "file")}, more than --max-delete ${opts.maxDelete}; nothing was moved`,
      { code: "prune_limit" },
    );
  }
  if (opts.dryRun) return [...results, ...movable.map((r) => result(out, r, "would-prune"))];
  if (movable.length === 0) return results;
  const trash = trashDir(out, opts.today, movable.length);
  for (const rec of movable) {
    const refuse = (problem: string) =>
      new FileSystemError(`refusing to prune ${rec.file}: ${problem}`, {
        code: "unsafe_state_dir",
      });
    const from = containedPath(out.dir, rec.file, refuse, { noSymlinks: true });
    let to = containedPath(trash, rec.file, refuse, { noSymlinks: true });
    for (let n = 1; lstatIfExists(to); n++) to = join(trash, `${rec.file}.${n}`);
    renameSync(from, to);
    out.forget(rec.file);
    results.push({ ...result(out, rec, "pruned"), path: to });
  }
  return results;
}

/**
 * `DIR/.svc-dl/trash/<today>/`, made by svc-dl (mode 0700) or an existing plain directory;
 * throws FileSystemError `unsafe_state_dir` naming the level that is a symlink or not a
 * directory (nothing moved), file-system errors as exit 8 `fsError`s.
 */
function trashDir(out: OutputDir, today: string, count: number): string {
  const refuse = (path: string, problem: string): Error =>
    new FileSystemError(
      `refusing to prune: ${path} ${problem}; nothing was moved (${counted(count, "file")} would have been)`,
      {
        code: "unsafe_state_dir",
        detail: { path, trash: true },
      },
    );
  try {
    return ensureOwnedDirs(out.stateDir, ["trash", today], { unsafe: refuse });
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    throw fsError(`cannot make the trash folder ${join(out.stateDir, "trash", today)}`, err);
  }
}

function result(out: OutputDir, rec: StateItem, status: SyncStatus): SyncItemResult {
  return {
    slug: rec.slug,
    edition: rec.edition === "authoring" ? "authoring" : "standard",
    status,
    reason: null,
    path: out.pathOf(rec.file),
    bytes: rec.size,
    sha256: rec.sha256,
    error: null,
  };
}

/** Summary counters of the prune step (`not_owned`, `would_prune`, `pruned`, `kept_modified`), only those above 0. */
export function pruneCounts(items: readonly SyncItemResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    if (!PRUNE_STATUSES.has(item.status)) continue;
    const key = item.status.replaceAll("-", "_");
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const PRUNE_STATUSES: ReadonlySet<SyncStatus> = new Set([
  "not-owned",
  "would-prune",
  "pruned",
  "kept-modified",
]);
