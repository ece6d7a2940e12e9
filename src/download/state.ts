import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import type { Edition, ItemKind } from "./names.js";

/** Name of the bookkeeping directory inside an output directory (cli-contract "Downloads"). */
export const STATE_DIR = ".svc-dl";
/** Name of the state file inside {@link STATE_DIR}. */
export const STATE_FILE = "state.json";

/** Identifies a downloadable item: a pack edition or an asset (`edition` null). */
export interface ItemRef {
  kind: ItemKind;
  slug: string;
  edition: Edition | null;
}

/**
 * One completed download recorded in `<dir>/.svc-dl/state.json`. `file` is a base name
 * inside the directory; `size` in bytes; `sha256` lower-case hex of the file's bytes;
 * `etag` the strong ETag the file was served with (null if none); `completed_at` ISO time.
 */
export interface StateItem extends ItemRef {
  file: string;
  size: number;
  etag: string | null;
  sha256: string;
  completed_at: string;
}

/** The state file: `{ version: 1, items: { <file name>: StateItem } }`, keyed by file name. */
export interface StateFile {
  version: 1;
  items: Record<string, StateItem>;
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
 * Reads `<dir>/.svc-dl/state.json`. A missing file is an empty state. Entries that do not have
 * the recorded shape are dropped (a hand-edited file never crashes a run). Throws
 * FileSystemError `state_unreadable` (exit 8) when the file exists but is not JSON.
 */
export function readState(dir: string): StateFile {
  const path = statePathOf(dir);
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, items: {} };
    throw new FileSystemError(`cannot read ${path}: ${(err as Error).message}`, {
      code: "state_unreadable",
      cause: err,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new FileSystemError(`state file ${path} is not valid JSON`, {
      code: "state_unreadable",
      hint: `Move ${path} away to start a fresh record (files will then count as not ours).`,
      cause: err,
    });
  }
  const items: Record<string, StateItem> = {};
  const rawItems = (parsed as { items?: unknown } | null)?.items;
  if (rawItems && typeof rawItems === "object") {
    for (const [name, value] of Object.entries(rawItems as Record<string, unknown>)) {
      const item = asStateItem(value);
      if (item && item.file === name) items[name] = item;
    }
  }
  return { version: 1, items };
}

function asStateItem(value: unknown): StateItem | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  const okKind = v.kind === "pack" || v.kind === "asset";
  const okEdition = v.edition === null || v.edition === "standard" || v.edition === "authoring";
  if (
    !okKind ||
    !okEdition ||
    typeof v.slug !== "string" ||
    typeof v.file !== "string" ||
    typeof v.size !== "number" ||
    typeof v.sha256 !== "string" ||
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
  };
}

/**
 * Writes the state file atomically (write-file-atomic: temp file, fsync, rename). Call only
 * while holding the directory lock. Throws FileSystemError `write_failed` (exit 8).
 */
export async function writeState(dir: string, state: StateFile): Promise<void> {
  const { default: writeFileAtomic } = await import("write-file-atomic");
  const path = statePathOf(dir);
  const sorted: Record<string, StateItem> = {};
  for (const name of Object.keys(state.items).sort()) {
    const item = state.items[name];
    if (item) sorted[name] = item;
  }
  try {
    await writeFileAtomic(path, `${JSON.stringify({ version: 1, items: sorted }, null, 2)}\n`);
  } catch (err) {
    throw new FileSystemError(`cannot write ${path}: ${(err as Error).message}`, {
      code: "write_failed",
      cause: err,
    });
  }
}

/** True when `a` and `b` name the same pack edition or asset. */
export function sameItem(a: ItemRef, b: ItemRef): boolean {
  return a.kind === b.kind && a.slug === b.slug && (a.edition ?? null) === (b.edition ?? null);
}

/** The most recently completed record of `item` in `state`, if any. */
export function findRecorded(state: StateFile, item: ItemRef): StateItem | undefined {
  let best: StateItem | undefined;
  for (const entry of Object.values(state.items)) {
    if (sameItem(entry, item) && (!best || entry.completed_at > best.completed_at)) best = entry;
  }
  return best;
}

/**
 * Whether a recorded item is complete in `dir`: its file exists as a regular file with the
 * recorded size (no hashing; `verify` does that). Used by `packs sync` to skip items without
 * any request.
 */
export function isRecordedComplete(dir: string, item: StateItem): boolean {
  try {
    const st = statSync(join(dir, item.file));
    return st.isFile() && st.size === item.size;
  } catch {
    return false;
  }
}

/** Why an item would be fetched by `packs sync --dry-run`, or "complete". */
export type LocalStatus = "new" | "missing" | "size-differs" | "complete";

/**
 * The local status of `item` in `dir` from the state file alone: `new` (never recorded),
 * `missing` (recorded, file gone), `size-differs` (recorded, other size) or `complete`.
 */
export function localStatus(dir: string, state: StateFile, item: ItemRef): LocalStatus {
  const recorded = findRecorded(state, item);
  if (!recorded) return "new";
  try {
    const st = statSync(join(dir, recorded.file));
    if (!st.isFile()) return "missing";
    return st.size === recorded.size ? "complete" : "size-differs";
  } catch {
    return "missing";
  }
}
