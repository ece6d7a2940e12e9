import {
  copyFile,
  constants as fsConstants,
  link,
  lstat,
  mkdir,
  readdir,
  readlink,
  symlink,
} from "node:fs/promises";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { hashRegularFile } from "../io/file-hash.js";
import { extractFsError } from "./errors.js";

/** The previous extraction's files and folders (from the manifest), and the new one's. */
export interface CarryOverInput {
  /** The existing folder, a real directory (checked by the caller). */
  target: string;
  /** The new folder being built (fresh, ours). */
  next: string;
  oldFiles: ReadonlySet<string>;
  oldDirs: ReadonlySet<string>;
  newFiles: ReadonlySet<string>;
  newDirs: ReadonlySet<string>;
}

/**
 * Brings everything the user added to `target` into `next` (cli-contract "Downloads",
 * `--extract`: a later version replaces exactly the files the previous one extracted): every
 * entry not listed in `oldFiles` is hard-linked (copied where links are not possible) into the
 * same place in `next`; symlinks are re-created as links, never followed; folders are walked
 * with `lstat` only. Files of the previous extraction are left behind (they go with the old
 * folder). An existing file on a path the new archive also fills is taken as the archive's when
 * its bytes are identical (a folder restored without `.svc-dl/`); any other clash throws
 * FileSystemError `file_exists` (exit 8) and nothing is changed. `target` itself is only read.
 */
export async function carryOver(input: CarryOverInput): Promise<void> {
  await walk(input, "");
}

async function walk(input: CarryOverInput, rel: string): Promise<void> {
  const from = rel === "" ? input.target : join(input.target, rel);
  let names: string[];
  try {
    names = await readdir(from);
  } catch (err) {
    throw extractFsError(`cannot read ${from}`, err);
  }
  if (rel !== "" && !input.oldDirs.has(rel) && !input.newDirs.has(rel)) {
    await makeDir(join(input.next, rel)); // a folder the user made, kept even when empty
  }
  for (const name of names) {
    const childRel = rel === "" ? name : `${rel}/${name}`;
    const src = join(input.target, childRel);
    const dest = join(input.next, childRel);
    const st = await lstat(src).catch((err: unknown) => {
      throw extractFsError(`cannot read ${src}`, err);
    });
    if (st.isDirectory()) {
      if (input.newFiles.has(childRel)) throw clash(src);
      await walk(input, childRel);
      continue;
    }
    if (input.oldFiles.has(childRel) && st.isFile()) continue;
    if (input.newDirs.has(childRel)) throw clash(src);
    if (input.newFiles.has(childRel)) {
      if (st.isFile() && (await sameBytes(src, dest))) continue;
      throw clash(src);
    }
    await makeDir(join(input.next, rel));
    try {
      if (st.isSymbolicLink()) await symlink(await readlink(src), dest);
      else if (st.isFile()) await linkOrCopy(src, dest);
      // sockets, FIFOs and devices the user placed are left in the old folder
    } catch (err) {
      throw extractFsError(`cannot keep ${src} in the new version`, err);
    }
  }
}

async function makeDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw extractFsError(`cannot create ${path}`, err);
  }
}

async function linkOrCopy(src: string, dest: string): Promise<void> {
  try {
    await link(src, dest);
  } catch {
    await copyFile(src, dest, fsConstants.COPYFILE_EXCL);
  }
}

function clash(path: string): FileSystemError {
  return new FileSystemError(
    `${path} exists, was not extracted by svc-dl, and the new archive puts something else there`,
    {
      code: "file_exists",
      detail: { path, extracting: true },
    },
  );
}

/** Whether two regular files hold the same bytes (size, then SHA-256). */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([lstat(a), lstat(b)]);
  if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size) return false;
  const [ha, hb] = await Promise.all([hashRegularFile(a), hashRegularFile(b)]);
  return ha !== undefined && ha.sha256 === hb?.sha256;
}
