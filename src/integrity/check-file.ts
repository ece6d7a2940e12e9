import { type FileHandle, open } from "node:fs/promises";
import { isNotRegular, READ_NO_FOLLOW } from "../io/safe-fs.js";
import type { ItemKind } from "../model.js";
import type { Damage } from "./damage.js";
import { findGlbDamage } from "./glb-check.js";
import { findZipDamage } from "./zip-check.js";
import type { FormatVerdict } from "./zip-stream-verdict.js";

export { type Damage, describeDamage } from "./damage.js";

/** Expected file format: packs are ZIP archives, assets GLB (binary glTF 2.0). */
export type CheckedFormat = "zip" | "glb";

/** The format an item of `kind` must have: a pack is a ZIP archive, an asset a GLB. */
export function formatOfKind(kind: ItemKind): CheckedFormat {
  return kind === "pack" ? "zip" : "glb";
}

/**
 * The one rule of cli-contract "Integrity" for a file that may have been checked while it was
 * read (the streaming ZIP walk of a pack, src/integrity/zip-stream-check.ts): a `sound`
 * verdict vouches for every entry; anything else (`unsure`, no walk at all, every GLB) is
 * decided by `check`, {@link findDamage} unless a test passes another. Returns the damage, or
 * undefined when the file is sound. Throws what `check` throws.
 */
export async function damageUnlessVouched(
  path: string,
  format: CheckedFormat,
  verdict: FormatVerdict | undefined,
  signal?: AbortSignal,
  check: typeof findDamage = findDamage,
): Promise<Damage | undefined> {
  if (verdict === "sound") return undefined;
  return await check(path, format, signal);
}

/**
 * The format checks of cli-contract "Integrity" on the file at `path` (never through a
 * symlink; a FIFO is not waited on): for `zip` every entry against the archive's own CRC-32s
 * and sizes ({@link findZipDamage}), for `glb` the structure ({@link findGlbDamage}). Reads
 * the file once, front to back (from the page cache right after a download). Returns the
 * damage, or undefined when the file is sound; a path that is missing or not a regular file is
 * damage too. Throws `signal.reason` when `signal` aborts, and read errors other than those.
 */
export async function findDamage(
  path: string,
  format: CheckedFormat,
  signal?: AbortSignal,
): Promise<Damage | undefined> {
  let file: FileHandle;
  try {
    file = await open(path, READ_NO_FOLLOW);
  } catch (err) {
    if (isNotRegular(err)) return { reason: "not a regular file" };
    throw err;
  }
  try {
    return await findDamageIn(file, format, signal);
  } finally {
    await file.close();
  }
}

/** {@link findDamage} on an open file (the caller keeps and closes it). */
export async function findDamageIn(
  file: FileHandle,
  format: CheckedFormat,
  signal?: AbortSignal,
): Promise<Damage | undefined> {
  const st = await file.stat();
  if (!st.isFile()) return { reason: "not a regular file" };
  if (st.size === 0) return { reason: "the file is empty", offset: 0 };
  return format === "zip" ? await findZipDamage(file, signal) : await findGlbDamage(file, st.size);
}
