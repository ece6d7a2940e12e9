import { lstatSync, readdirSync, renameSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Longest path (bytes, beyond the length of the tree's own root) that {@link removeTree} hands to
 * a system call: a folder deeper than this is first moved up to the root, so no call ever sees a
 * path near the system's limit (4,096 bytes on Linux) however deep the tree.
 */
const DEPTH_BUDGET_BYTES = 1024;

/**
 * Removes the tree at `path` (a folder svc-dl made, e.g. a half-built extraction left by a crash;
 * cli-contract "Untrusted text, paths and caches": a failed extraction never blocks later runs).
 * Unlike `fs.rmSync(path, {recursive: true})`, which recurses once per level and overflows the
 * stack on a tree a few thousand levels deep, this walks with an explicit stack, so depth costs
 * memory, not stack frames; folders nested deeper than {@link DEPTH_BUDGET_BYTES} are renamed
 * up to the root first, so path length stays bounded. Symbolic links are removed, never
 * followed (checked with `lstat`). Each folder is listed once and each failure is thrown at
 * once (no retry loop), so the walk always ends. A missing `path` is not an error.
 * Throws the first file-system error (ErrnoException) other than ENOENT.
 */
export function removeTree(path: string): void {
  const top = lstatSync(path, { throwIfNoEntry: false });
  if (top === undefined) return;
  if (!top.isDirectory()) {
    unlinkQuietly(path);
    return;
  }
  const budget = Buffer.byteLength(path) + DEPTH_BUDGET_BYTES;
  const stack: { path: string; listed: boolean }[] = [{ path, listed: false }];
  let moved = 0;
  while (stack.length > 0) {
    const at = stack[stack.length - 1] as { path: string; listed: boolean };
    if (at.listed) {
      stack.pop();
      rmdirQuietly(at.path);
      continue;
    }
    at.listed = true;
    for (const name of readdirSync(at.path)) {
      let child = join(at.path, name);
      const st = lstatSync(child, { throwIfNoEntry: false });
      if (st === undefined) continue;
      if (!st.isDirectory()) {
        unlinkQuietly(child);
        continue;
      }
      if (Buffer.byteLength(child) > budget) {
        const up = freeName(path, moved);
        moved = up.next;
        renameSync(child, up.path);
        child = up.path;
      }
      stack.push({ path: child, listed: false });
    }
  }
}

/** A name directly under `root` that does not exist yet, trying `.rm-<from>`, `.rm-<from+1>`, … */
function freeName(root: string, from: number): { path: string; next: number } {
  for (let n = from; ; n++) {
    const candidate = join(root, `.rm-${n}`);
    if (lstatSync(candidate, { throwIfNoEntry: false }) === undefined) {
      return { path: candidate, next: n + 1 };
    }
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

function rmdirQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
