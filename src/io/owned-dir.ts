import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { containedPath } from "./containment.js";
import { type OwnedLayout, walkLayout } from "./owned-walk.js";

export type { OwnedKind, OwnedLayout } from "./owned-walk.js";

import {
  createPrivateFile,
  lstatIfExists,
  PRIVATE_DIR_MODE,
  readRegularFile,
  unsafeDirProblem,
} from "./safe-fs.js";

/**
 * The one notion of "a directory svc-dl owns" (cli-contract "Untrusted text, paths and
 * caches"): a root that carries svc-dl's marker file and holds only the entries its layout
 * names. Rules every owner follows through this module:
 * - only delete what we own: a removal walks the layout and unlinks only the names it gives,
 *   never following a symlink, and is refused up front when anything else is there;
 * - never re-mode what we did not create: the mode is set only on a root created here;
 * - never follow a symlink inside it: every path is checked component by component.
 */

/** How an owner turns the module's findings into its own errors. */
export interface OwnedRefusals {
  /** The root, or a directory of the layout, is a symlink, not a directory, or not private. */
  unsafe(path: string, problem: string): Error;
  /**
   * `entry` (a path below the root, `/`-joined) is not svc-dl's: `why` says how; `unmarked`
   * when the whole root lacks the marker (svc-dl did not create it).
   */
  foreign(entry: string, why: string, unmarked: boolean): Error;
}

/** A foreign entry found in an owned root: its path below the root and why it is foreign. */
export interface ForeignEntry {
  readonly entry: string;
  readonly why: string;
  /** The root has no marker: svc-dl did not create it. */
  readonly unmarked: boolean;
}

const MARKER_TEMP = /^\..+\.[0-9a-f]{16}\.tmp$/;

/**
 * Opens the owned directory `root` (absolute) for writing, creating it when missing (parents
 * included) with mode 0700 and a marker. An existing root must be private (see
 * {@link unsafeDirProblem}) and carry the marker; an existing empty one is adopted (the marker
 * written, its mode left as it is). Every existing top-level directory of the layout must be a
 * plain directory. Returns true when the root was created here. Throws `refusals.unsafe` or
 * `refusals.foreign` errors, and file-system errors (EACCES, EROFS…) as they are.
 */
export function openOwnedDir(root: string, layout: OwnedLayout, refusals: OwnedRefusals): boolean {
  let created = false;
  if (!lstatIfExists(root)) {
    mkdirSync(dirname(root), { recursive: true, mode: PRIVATE_DIR_MODE });
    try {
      mkdirSync(root, { mode: PRIVATE_DIR_MODE });
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  const problem = unsafeDirProblem(lstatSync(root));
  if (problem) throw refusals.unsafe(root, problem);
  if (created) chmodSync(root, PRIVATE_DIR_MODE); // ours: no umask decides its mode
  if (!hasMarker(root, layout)) {
    const foreign = findForeign(root, layout);
    if (foreign) throw refusals.foreign(foreign.entry, foreign.why, foreign.unmarked);
    writeMarker(root, layout);
  }
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (layout.kind([entry.name]) === "dir" && (entry.isSymbolicLink() || !entry.isDirectory())) {
      throw refusals.unsafe(join(root, entry.name), "is a symbolic link or not a directory");
    }
  }
  return created;
}

/**
 * The first entry of `root` that is not svc-dl's, or undefined when every entry is named by the
 * layout (a root without its marker: its first entry, or the marker's name for an empty one).
 * Walks only the layout's own directories, never through a symlink. `root` must exist.
 */
export function findForeign(root: string, layout: OwnedLayout): ForeignEntry | undefined {
  if (!hasMarker(root, layout)) {
    const first = ownEntries(root, layout)[0];
    if (first === undefined) return undefined;
    const why = `the directory has no ${layout.marker}: svc-dl did not create it`;
    return { entry: first, why, unmarked: true };
  }
  let found: ForeignEntry | undefined;
  walkLayout(root, layout, (name) => isMarkerTemp(name, layout), {
    foreign: (entry, why) => {
      found ??= { entry, why, unmarked: false };
      return found === undefined;
    },
  });
  return found;
}

/**
 * Removes every file and directory of the layout below `root`, except the marker, bottom-up:
 * files are unlinked, directories removed only once empty. Refuses (throws
 * `refusals.foreign`, nothing deleted) when {@link findForeign} finds anything; an entry that
 * appears meanwhile is skipped, never deleted. Returns how many removed files `counts` accepts.
 * File-system errors (EACCES, EROFS) are thrown as they are, after what was removed so far.
 */
export function removeOwned(
  root: string,
  layout: OwnedLayout,
  refusals: OwnedRefusals,
  counts: (path: readonly string[]) => boolean,
): number {
  const foreign = findForeign(root, layout);
  if (foreign) throw refusals.foreign(foreign.entry, foreign.why, foreign.unmarked);
  let removed = 0;
  walkLayout(root, layout, (name) => isMarkerTemp(name, layout), {
    file: (full, path) => {
      if (path.length === 1 && path[0] === layout.marker) return;
      if (ignoreMissing(() => unlinkSync(full)) && counts(path)) removed += 1;
    },
    dirDone: (full) => {
      try {
        rmdirSync(full);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") throw err;
      }
    },
  });
  return removed;
}

/**
 * The path of `path` (names below the owned `root`) when no existing component on the way is a
 * symbolic link (containment's rule, the same as for the root); undefined otherwise.
 */
export function ownedPath(root: string, path: readonly string[]): string | undefined {
  try {
    return containedPath(root, path.join("/"), (p) => new Error(p), { noSymlinks: true });
  } catch {
    return undefined;
  }
}

/**
 * Makes the directories of `path` (names below the owned `root`, each a "dir" of the layout)
 * exist as plain directories: missing ones are created with mode 0700, existing ones are
 * checked, never re-moded. Returns the full path. Throws `refusals.unsafe` for a symlink or
 * non-directory on the way, and file-system errors as they are.
 */
export function ensureOwnedDirs(
  root: string,
  path: readonly string[],
  refusals: Pick<OwnedRefusals, "unsafe">,
): string {
  let at = root;
  for (const name of path) {
    at = join(at, name);
    try {
      mkdirSync(at, { mode: PRIVATE_DIR_MODE });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const st = lstatSync(at);
    if (st.isSymbolicLink() || !st.isDirectory()) {
      throw refusals.unsafe(at, "is a symbolic link or not a directory");
    }
  }
  return at;
}

/** True when the root's marker is a regular file (never a symlink) starting with the signature. */
function hasMarker(root: string, layout: OwnedLayout): boolean {
  const text = readRegularFile(join(root, layout.marker), 64 * 1024);
  return text?.startsWith(layout.signature) === true;
}

/** The root's entries, except a marker being written by another process (sorted). */
function ownEntries(root: string, layout: OwnedLayout): string[] {
  return readdirSync(root)
    .filter((name) => !isMarkerTemp(name, layout))
    .sort();
}

/** True for the name of a marker being written ({@link writeMarker}'s temp file). */
function isMarkerTemp(name: string, layout: OwnedLayout): boolean {
  return MARKER_TEMP.test(name) && name.startsWith(`.${layout.marker}.`);
}

/**
 * Writes the marker whole or not at all: a private temp file beside it, then a hard link to
 * the marker's name (EEXIST: another process won and its marker is whole). Where hard links
 * are not supported, a rename.
 */
function writeMarker(root: string, layout: OwnedLayout): void {
  const target = join(root, layout.marker);
  const tmp = join(root, `.${layout.marker}.${randomBytes(8).toString("hex")}.tmp`);
  try {
    const fd = createPrivateFile(tmp);
    try {
      writeSync(fd, layout.markerText);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return;
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
      renameSync(tmp, target);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Runs `fn`; false when it failed with ENOENT (removed meanwhile). */
function ignoreMissing(fn: () => void): boolean {
  try {
    fn();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
