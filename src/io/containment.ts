import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve, sep, win32 } from "node:path";

/**
 * The one containment rule (cli-contract "Untrusted text, paths and caches", "Downloads"): a path
 * that comes from outside svc-dl (a manifest's `dir`, a lock or state record, an archive entry,
 * a cache entry) names something inside its root, or it is refused. Every feature that turns
 * an outside string into a path goes through {@link containedPath}.
 */

/** Why an outside path is refused; `undefined` from {@link containmentProblem} means accepted. */
export type ContainmentProblem =
  | "empty"
  | "absolute"
  | "drive letter"
  | "climbs out"
  | "control character"
  | "symlink on the way";

/**
 * Why the relative path `rel` (from outside; `/` or `\` separated) may not be joined to a root,
 * or undefined when it stays inside: not empty, not absolute (POSIX or Windows, UNC included),
 * no drive letter, no NUL or other C0 control, and no `..` that climbs above the root at any
 * point (`a/../../b` climbs; `a/../b` does not).
 */
export function containmentProblem(rel: string): ContainmentProblem | undefined {
  if (rel.length === 0) return "empty";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f]/.test(rel)) return "control character";
  if (/^[A-Za-z]:/.test(rel)) return "drive letter";
  if (isAbsolute(rel) || posix.isAbsolute(rel) || win32.isAbsolute(rel)) return "absolute";
  let depth = 0;
  for (const segment of rel.split(/[\\/]+/)) {
    if (segment === "" || segment === ".") continue;
    depth += segment === ".." ? -1 : 1;
    if (depth < 0) return "climbs out";
  }
  return undefined;
}

/** Options of {@link containedPath}. */
export interface ContainedPathOptions {
  /**
   * Also refuse when an existing component between `root` and the result is a symbolic link
   * (checked with `lstat`, so a link is never followed out of the root). Default false: the
   * lexical rule only.
   */
  readonly noSymlinks?: boolean;
  /**
   * Also refuse when a symbolic link on the way leads out: the real path (links resolved) of the
   * deepest existing component must lie inside the real path of `root`; a dangling link or a
   * loop there is refused too. Links that stay inside are accepted. Default false.
   */
  readonly noEscapingSymlinks?: boolean;
}

/**
 * `root` joined with the outside path `rel`, resolved; throws the error `refuse(problem)` builds
 * when `rel` is refused by {@link containmentProblem}, when the result is not inside `root`, or
 * (with `noSymlinks`) when an existing component below `root` is a symbolic link, or (with
 * `noEscapingSymlinks`) when a link on the way leads outside `root`.
 */
export function containedPath(
  root: string,
  rel: string,
  refuse: (problem: ContainmentProblem) => Error,
  options: ContainedPathOptions = {},
): string {
  const problem = containmentProblem(rel);
  if (problem !== undefined) throw refuse(problem);
  const base = resolve(root);
  const full = resolve(base, rel);
  const inside = relative(base, full);
  if (inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside)) {
    throw refuse("climbs out");
  }
  if (options.noSymlinks === true && inside !== "") {
    let at = base;
    for (const segment of inside.split(sep)) {
      at = join(at, segment);
      let isLink = false;
      try {
        isLink = lstatSync(at).isSymbolicLink();
      } catch {
        break; // the rest does not exist yet: nothing to follow
      }
      if (isLink) throw refuse("symlink on the way");
    }
  }
  if (options.noEscapingSymlinks === true && leadsOut(base, full))
    throw refuse("symlink on the way");
  return full;
}

/** Whether the deepest existing component of `full` (inside `base`) really lies outside `base`. */
function leadsOut(base: string, full: string): boolean {
  let at = full;
  while (lstatSync(at, { throwIfNoEntry: false }) === undefined) {
    if (at === base) return false; // nothing below the root exists yet
    at = dirname(at);
  }
  let real: string;
  try {
    real = realpathSync(at);
  } catch {
    return true; // a dangling link or a loop: where it leads is not known
  }
  let realBase: string;
  try {
    realBase = realpathSync(base);
  } catch {
    realBase = base;
  }
  return !isInside(realBase, real);
}

/** True when `path` (resolved) is `root` itself or lies below it. */
export function isInside(root: string, path: string): boolean {
  const inside = relative(resolve(root), resolve(path));
  return inside === "" || !(inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside));
}
