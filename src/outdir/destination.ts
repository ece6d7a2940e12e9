import { statSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { fsError } from "../errors/fs-error.js";
import { UsageError } from "../errors/usage-error.js";
import { makeDirectory } from "../io/mkdir.js";
import { lstatIfExists } from "../io/safe-fs.js";
import { specialFile } from "./errors.js";

/** Where a `get` writes (cli-contract "Downloads", `-o PATH`). */
export type Destination =
  | { kind: "stdout" }
  /** `dir` absolute; `fileName` set when `-o` named the exact file. */
  | { kind: "file"; dir: string; fileName?: string };

/**
 * Resolves `-o PATH` against `cwd`: none → the current directory; `-` → stdout; an existing
 * directory or a path ending in `/` → that directory (created if missing), server's name
 * inside; any other path → that exact file name (its parent directory created if missing).
 * Throws UsageError (exit 2) for an empty path, FileSystemError (exit 8) when a directory
 * cannot be created.
 */
export function resolveDestination(output: string | undefined, cwd: string): Destination {
  if (output === undefined) return { kind: "file", dir: cwd };
  if (output === "-") return { kind: "stdout" };
  if (output.trim() === "") throw new UsageError("-o needs a path (or - for stdout)");
  const abs = resolve(cwd, output);
  const endsWithSlash = output.endsWith("/") || output.endsWith(sep);
  if (endsWithSlash || isDirectory(abs)) {
    ensureDir(abs);
    return { kind: "file", dir: abs };
  }
  const name = basename(abs);
  if (name === "" || name === "." || name === "..") {
    throw new UsageError(`-o ${output} does not name a file`);
  }
  // Refused before anything is created next to it (a device is never a download's target).
  const st = lstatIfExists(abs);
  if (st && !st.isFile() && !st.isSymbolicLink() && !st.isDirectory()) throw specialFile(abs);
  const dir = dirname(abs);
  ensureDir(dir);
  return { kind: "file", dir, fileName: name };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function ensureDir(dir: string): void {
  try {
    makeDirectory(dir);
  } catch (err) {
    throw fsError(`cannot create directory ${dir}`, err);
  }
}
