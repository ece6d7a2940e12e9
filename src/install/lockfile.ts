import { dirname, join } from "node:path";
import { slugProblem } from "../api/slug.js";
import { UsageError } from "../errors/usage-error.js";
import { readOutputFile, writeOutputFile } from "../io/output-file.js";
import * as z from "../io/schema.js";
import { formatJsonPath, parseStrictJson } from "../io/strict-json.js";
import { safeBaseName } from "../outdir/names.js";
import type { ItemKey, LockFile, LockItem } from "./types.js";

/** Name of the lock file, written beside the manifest. */
export const LOCK_FILE = "svc-dl.lock";

const LockItemSchema = z.strictObject({
  kind: z.enum(["pack", "asset"]),
  slug: z
    .string()
    .check(z.refine((s) => slugProblem(s) === undefined, { message: "is not a valid slug" })),
  edition: z.nullable(z.enum(["standard", "authoring"])),
  file: z
    .string()
    .check(z.refine((f) => safeBaseName(f) === f, { message: "is not a safe file name" })),
  size: z.number().check(z.int(), z.nonnegative()),
  etag: z.nullable(z.string()),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, "is not a lower-case hex SHA-256")),
});

const LockFileSchema = z.strictObject({
  lockfileVersion: z.literal(1),
  items: z.array(LockItemSchema),
});

/** Path of the lock beside the manifest at `manifestPath`. */
export function lockPathFor(manifestPath: string): string {
  return join(dirname(manifestPath), LOCK_FILE);
}

/** The key of an item in maps: `pack:slug:edition` / `asset:slug:`. */
export function itemKey(item: ItemKey): string {
  return `${item.kind}:${item.slug}:${item.edition ?? ""}`;
}

/**
 * Reads `svc-dl.lock` at `path`. Returns undefined when it does not exist. The lock is input
 * from a repository, so it is validated (a UTF-8 byte-order mark accepted, a key named twice in
 * one object refused: src/io/strict-json.ts; strict schema, safe file names, hex SHA-256). Throws
 * UsageError `invalid_lock` (exit 2) naming the JSON path of the first problem.
 */
export function readLock(path: string): LockFile | undefined {
  const raw = readOutputFile(LOCK_FILE, path);
  if (raw === undefined) return undefined;
  const json = parseStrictJson(raw);
  if (!json.ok) throw invalidLock(path, json.problem);
  const parsed = LockFileSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = (issue?.path ?? []).map((p) => (typeof p === "number" ? p : String(p)));
    throw invalidLock(path, `${formatJsonPath(where)}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/**
 * The lock's text: items sorted by kind, slug and edition, keys in a fixed order, two-space
 * indented, newline-terminated (so it diffs well in review and an unchanged set is byte-identical).
 */
export function renderLock(items: readonly LockItem[]): string {
  const sorted = [...items]
    .map((i) => ({
      kind: i.kind,
      slug: i.slug,
      edition: i.edition,
      file: i.file,
      size: i.size,
      etag: i.etag,
      sha256: i.sha256,
    }))
    .sort((a, b) => compare(itemKey(a), itemKey(b)));
  return `${JSON.stringify({ lockfileVersion: 1, items: sorted }, null, 2)}\n`;
}

/**
 * Writes the lock with the one writer of files outside `.svc-dl/` (src/io/output-file.ts:
 * atomic, the mode of the file it replaces kept; a symlink, FIFO, device or directory in its
 * place refused, exit 8 `unsafe_output_path`) only when its text differs from what is on disk.
 * Returns true when it was written. Throws FileSystemError (exit 8) when it cannot be written.
 */
export async function writeLockIfChanged(
  path: string,
  items: readonly LockItem[],
): Promise<boolean> {
  const text = renderLock(items);
  if (readOutputFile(LOCK_FILE, path) === text) return false;
  writeOutputFile(LOCK_FILE, path, text);
  return true;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function invalidLock(path: string, what: string): UsageError {
  return new UsageError(`invalid lock file ${path}: ${what}`, {
    code: "invalid_lock",
  });
}
