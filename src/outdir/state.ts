import { join } from "node:path";
import { slugProblem } from "../api/slug.js";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { makeDirectory } from "../io/mkdir.js";
import {
  checkPrivateDir,
  ensurePrivateDir,
  readRegularFile,
  writePrivateFileAtomic,
} from "../io/safe-fs.js";
import type { ItemRef } from "../model.js";
import { type Edition, type ItemKind, isSafeBaseName } from "./names.js";

export type { ItemRef } from "../model.js";

/** Name of the bookkeeping directory inside an output directory (cli-contract "Downloads"). */
export const STATE_DIR = ".svc-dl";
/** Name of the state file inside {@link STATE_DIR}. */
export const STATE_FILE = "state.json";

/**
 * One completed download recorded in `<dir>/.svc-dl/state.json`. `file` is a safe base name
 * inside the directory; `size` in bytes; `sha256` lower-case hex of the file's bytes; `etag`
 * the strong ETag the file was served with (null if none); `completed_at` ISO time;
 * `mtime_ms` the file's modification time (ms since the epoch) when recorded, so a changed
 * file is noticed without hashing; `fixed_name` true when the user chose the name (`-o FILE`):
 * such a record never answers for the item's own (server-named) file.
 */
export interface StateItem extends ItemRef {
  file: string;
  size: number;
  etag: string | null;
  sha256: string;
  completed_at: string;
  mtime_ms?: number;
  fixed_name?: boolean;
  /**
   * Set only while the file is being replaced: the record of the new file about to be renamed
   * over it (src/outdir/replacement.ts decides after a crash which of the two the file is).
   */
  next?: StateItem;
}

/**
 * The state file: `{ version: 1, items: { <file name>: StateItem } }`, keyed by file name.
 * `generation` (random hex) is set while a run appends to the journal beside it
 * (src/outdir/journal.ts): the journal applies only to the snapshot naming its generation.
 */
export interface StateFile {
  version: 1;
  items: Record<string, StateItem>;
  generation?: string;
}

/** Path of the bookkeeping directory of `dir`. */
export function stateDirOf(dir: string): string {
  return join(dir, STATE_DIR);
}

/** Path of the state file of `dir`. */
export function statePathOf(dir: string): string {
  return join(dir, STATE_DIR, STATE_FILE);
}

/**
 * The `unsafe_state_dir` error (exit 8) for a `.svc-dl` that may not be trusted; a plain file in
 * the way is `write_failed` (exit 8): nothing there is followed or written either way.
 */
export function unsafeStateDir(dir: string, problem: string): FileSystemError {
  const path = stateDirOf(dir);
  if (problem === "is not a directory") {
    return new FileSystemError(`cannot create ${path}: a file is in the way`, {
      code: "write_failed",
      detail: { path, inTheWay: true },
    });
  }
  return new FileSystemError(`refusing to use ${path}: it ${problem}`, {
    code: "unsafe_state_dir",
    detail: { path },
  });
}

/**
 * Checks `<dir>/.svc-dl/` when it exists (cli-contract "Downloads"): returns false when it
 * does not exist, true when it is a private directory of ours. Throws FileSystemError
 * `unsafe_state_dir` (exit 8) for a symlink, another user's directory, or one writable by
 * group or others.
 */
export function checkStateDir(dir: string): boolean {
  try {
    return checkPrivateDir(stateDirOf(dir), (problem) => unsafeStateDir(dir, problem));
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    throw fsError(`cannot inspect ${stateDirOf(dir)}`, err);
  }
}

/**
 * Creates `<dir>/.svc-dl/` (0700 under any umask) or checks the existing one; `dir` must
 * exist. Throws FileSystemError `unsafe_state_dir`, or an exit-8 error when it cannot be made.
 */
export function ensureStateDir(dir: string): void {
  try {
    ensurePrivateDir(stateDirOf(dir), (problem) => unsafeStateDir(dir, problem));
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    throw fsError(`cannot create ${stateDirOf(dir)}`, err);
  }
}

/**
 * Creates output directory `dir` (bounded mkdir, parents included) and its `.svc-dl/` (see
 * {@link ensureStateDir}). Throws what ensureStateDir throws, and an exit-8 error when `dir`
 * cannot be created.
 */
export function ensureOutputDir(dir: string): void {
  try {
    makeDirectory(dir);
  } catch (err) {
    throw fsError(`cannot create directory ${dir}`, err);
  }
  ensureStateDir(dir);
}

/**
 * Reads `<dir>/.svc-dl/state.json` as untrusted input. A missing file, a symlink or other
 * non-regular file there, and a file that is not JSON all count as an empty state (files in
 * DIR are then adopted when identical to the served bytes). Entries without the recorded shape,
 * or whose file name is not a safe base name (`../x`, an absolute path, `.svc-dl`) are
 * dropped. Throws FileSystemError `unsafe_state_dir` (exit 8) when `.svc-dl` is unsafe, and
 * an exit-8 error when the file cannot be read.
 */
export function readState(dir: string): StateFile {
  const empty: StateFile = { version: 1, items: {} };
  if (!checkStateDir(dir)) return empty;
  let raw: string | undefined;
  try {
    raw = readRegularFile(statePathOf(dir));
  } catch (err) {
    throw fsError(`cannot read ${statePathOf(dir)}`, err);
  }
  if (raw === undefined) return empty;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return empty;
  }
  const items: Record<string, StateItem> = {};
  const rawItems = (parsed as { items?: unknown } | null)?.items;
  if (rawItems && typeof rawItems === "object") {
    for (const [name, value] of Object.entries(rawItems as Record<string, unknown>)) {
      const item = asStateItem(value);
      if (item && item.file === name) items[name] = item;
    }
  }
  const generation = (parsed as { generation?: unknown } | null)?.generation;
  return {
    version: 1,
    items,
    ...(typeof generation === "string" && GENERATION.test(generation) ? { generation } : {}),
  };
}

/** A snapshot's journal generation: 16 lower-case hex digits. */
export const GENERATION = /^[0-9a-f]{16}$/;

/**
 * A record read from an untrusted place (the state file, its journal) in the recorded shape,
 * with a `file` that is a safe base name and a slug the one slug rule accepts
 * (src/api/slug.ts); undefined otherwise.
 */
export function asStateItem(value: unknown): StateItem | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const okKind = v.kind === "pack" || v.kind === "asset";
  const okEdition = v.edition === null || v.edition === "standard" || v.edition === "authoring";
  if (
    !okKind ||
    !okEdition ||
    typeof v.slug !== "string" ||
    slugProblem(v.slug) !== undefined ||
    typeof v.file !== "string" ||
    !isSafeBaseName(v.file) ||
    typeof v.size !== "number" ||
    !Number.isSafeInteger(v.size) ||
    v.size < 0 ||
    typeof v.sha256 !== "string" ||
    !/^[0-9a-f]{64}$/.test(v.sha256) ||
    !(v.etag === null || typeof v.etag === "string")
  ) {
    return undefined;
  }
  return {
    kind: v.kind as ItemKind,
    slug: v.slug,
    edition: v.edition as Edition | null,
    file: v.file,
    size: v.size,
    etag: v.etag as string | null,
    sha256: v.sha256,
    completed_at: typeof v.completed_at === "string" ? v.completed_at : "",
    ...(typeof v.mtime_ms === "number" && Number.isFinite(v.mtime_ms)
      ? { mtime_ms: v.mtime_ms }
      : {}),
    ...(v.fixed_name === true ? { fixed_name: true } : {}),
    ...nextOf(v.next, v.file),
  };
}

/** The `next` record of a record being replaced, when it is one (no deeper `next`), same file. */
function nextOf(value: unknown, file: string): { next?: StateItem } {
  if (!value || typeof value !== "object" || "next" in value) return {};
  const next = asStateItem(value);
  return next && next.file === file ? { next } : {};
}

/**
 * Writes the state file atomically: a new 0600 temp file (`O_EXCL|O_NOFOLLOW`), fsync, rename
 * over `state.json` (a symlink there is replaced, never written through). Creates or checks
 * `.svc-dl/` first. Call only while holding the directory lock. Throws FileSystemError
 * `unsafe_state_dir`, `write_failed`/`no_space`/`permission_denied` (exit 8).
 */
export async function writeState(dir: string, state: StateFile): Promise<void> {
  ensureStateDir(dir);
  const path = statePathOf(dir);
  const sorted: Record<string, StateItem> = {};
  for (const name of Object.keys(state.items).sort()) {
    const item = state.items[name];
    if (item && isSafeBaseName(name)) sorted[name] = item;
  }
  const doc = { version: 1, ...(state.generation ? { generation: state.generation } : {}) };
  try {
    writePrivateFileAtomic(path, `${JSON.stringify({ ...doc, items: sorted }, null, 2)}\n`);
  } catch (err) {
    throw fsError(`cannot write ${path}`, err);
  }
}

/** True when `a` and `b` name the same pack edition or asset. */
export function sameItem(a: ItemRef, b: ItemRef): boolean {
  return a.kind === b.kind && a.slug === b.slug && (a.edition ?? null) === (b.edition ?? null);
}
