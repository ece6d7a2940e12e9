import { join } from "node:path";
import { lstatIfExists } from "../io/safe-fs.js";
import type { StateItem } from "./state.js";

/**
 * The record follows the file (cli-contract "Integrity"): before a recorded file is replaced,
 * its record is written with the new file's record as `next`; after the rename the new record
 * replaces it. A run killed in between leaves such a pair, and the next reader of the state
 * settles it here by what is at the name, without reading the file: the new file (size and
 * modification time of `next`: a rename keeps the mtime) takes the new record, the old file
 * keeps the old record, anything else has no record (a file identical to the served bytes is
 * then adopted by the next download). Changes `items` in place; returns true when it changed
 * anything (the caller rewrites the snapshot). Never follows a symlink.
 */
export function settleReplacements(dir: string, items: Record<string, StateItem>): boolean {
  let changed = false;
  for (const [name, rec] of Object.entries(items)) {
    if (rec.next === undefined) continue;
    changed = true;
    const { next, ...old } = rec;
    const now = statOf(join(dir, name));
    if (now && matches(now, next)) items[name] = next;
    else if (now && matches(now, old)) items[name] = old;
    else delete items[name];
  }
  return changed;
}

function statOf(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = lstatIfExists(path);
    return st?.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

function matches(now: { size: number; mtimeMs: number }, rec: StateItem): boolean {
  return rec.mtime_ms !== undefined && now.size === rec.size && now.mtimeMs === rec.mtime_ms;
}
