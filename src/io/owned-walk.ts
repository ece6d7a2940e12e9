import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/** What one path below an owned root is, by its layout: a directory, a file, or not ours. */
export type OwnedKind = "dir" | "file" | undefined;

/** The layout of an owned directory. */
export interface OwnedLayout {
  /** Name of the marker file at the root (`CACHEDIR.TAG`). */
  readonly marker: string;
  /** Full text of a new marker. */
  readonly markerText: string;
  /** A marker is recognised when its text starts with this. */
  readonly signature: string;
  /**
   * What the entry at `path` (its names below the root, e.g. `["sha256", "ab"]`) must be, or
   * undefined when the layout does not name it. The marker itself need not be listed.
   */
  kind(path: readonly string[]): OwnedKind;
}

/** What {@link walkLayout} calls for each entry it meets. */
export interface LayoutVisitor {
  /** A regular file of the layout (full path and names below the root). */
  file?(full: string, path: readonly string[]): void;
  /** A directory of the layout whose entries were all visited. */
  dirDone?(full: string): void;
  /** An entry the layout does not name (`entry` `/`-joined); return false to stop the walk. */
  foreign?(entry: string, why: string): boolean;
}

/**
 * Visits an owned directory's layout below `root` depth-first, in name order, without
 * recursion and without following a symlink: it descends only into directories the layout
 * names. The marker, and root-level names `isMarkerTemp` accepts, count as files of the layout.
 */
export function walkLayout(
  root: string,
  layout: OwnedLayout,
  isMarkerTemp: (name: string) => boolean,
  visit: LayoutVisitor,
): void {
  const stack: { full: string; path: string[]; entries?: Dirent[] }[] = [{ full: root, path: [] }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as (typeof stack)[number];
    if (!top.entries) {
      top.entries = readdirIfExists(top.full);
      top.entries.sort((a, b) => (a.name < b.name ? 1 : -1)); // popped in name order
    }
    const entry = top.entries.pop();
    if (!entry) {
      stack.pop();
      if (top.path.length > 0) visit.dirDone?.(top.full);
      continue;
    }
    const path = [...top.path, entry.name];
    const full = join(top.full, entry.name);
    const atRoot = path.length === 1;
    const ours = atRoot && (entry.name === layout.marker || isMarkerTemp(entry.name));
    const why = whyForeign(entry, ours ? "file" : layout.kind(path));
    if (why) {
      if (visit.foreign?.(path.join("/"), why) === false) return;
    } else if (entry.isDirectory()) stack.push({ full, path });
    else visit.file?.(full, path);
  }
}

/** Why a directory entry does not match what the layout names there, or undefined. */
function whyForeign(entry: Dirent, kind: OwnedKind): string | undefined {
  if (kind === undefined) return "svc-dl's layout does not name it";
  if (entry.isSymbolicLink()) return "it is a symbolic link (svc-dl makes none)";
  if (kind === "dir" && !entry.isDirectory()) return "it is not a directory";
  if (kind === "file" && !entry.isFile()) return "it is not a regular file";
  return undefined;
}

function readdirIfExists(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}
