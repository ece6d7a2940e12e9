import { statSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/usage-error.js";
import {
  damageUnlessVouched,
  describeDamage,
  type findDamage,
  formatOfKind,
} from "../integrity/check-file.js";
import { ZipStreamCheck } from "../integrity/zip-stream-check.js";
import { hashRegularFile } from "../io/file-hash.js";
import { lstatIfExists } from "../io/safe-fs.js";
import type { OutputDir } from "./output-dir.js";
import type { StateItem } from "./state.js";

/** One file's verdict (cli-contract "JSON documents": `verify --json`). */
export interface VerifyItem {
  /** Absolute path of the recorded file. */
  path: string;
  /**
   * `damaged`: the recorded bytes, but the format checks of cli-contract "Integrity" fail (a
   * ZIP entry's CRC-32 or size, GLB structure), e.g. bytes damaged before they were recorded;
   * `repaired` only after `verify --repair` downloaded it again and it then verified;
   * `forgotten` after `verify --forget-missing` dropped the record of a missing file.
   */
  status: "ok" | "changed" | "damaged" | "missing" | "repaired" | "forgotten";
  /** With `damaged`: what the format check found (entry, offset, reason). */
  damage?: string;
  /** SHA-256 of the file as it is now (lower-case hex), null when missing or not a regular file. */
  sha256: string | null;
  /** SHA-256 recorded in the state file. */
  expectedSha256: string;
  /** Size now in bytes (null when missing) and as recorded. */
  bytes: number | null;
  expectedBytes: number;
  /** The record behind this item (kind, slug, edition, file name). */
  record: StateItem;
}

/**
 * `svc-dl verify [DIR]` (cli-contract "verify", "Integrity"): re-hashes every file that the state
 * of `out` records and compares size and SHA-256, then applies the format checks to the files that
 * match (`damaged` when they fail), offline; a pack's entries are CRC-checked as the hash reads it
 * (src/integrity/zip-stream-check.ts), `findDamage` deciding whatever that walk cannot vouch for.
 * Items come in file-name order. Reads nothing outside DIR: names come from the state only when
 * they are safe base names (readState), and a symlink or other special file at a recorded name is
 * `changed`, never followed or hashed. A DIR with nothing recorded gives no items. `stops`
 * (`--max-duration`) is asked before each file: once it answers true, no later file is hashed and
 * the items verified so far are returned (the first `n` of `out.records()`). Throws
 * `signal.reason` when aborted.
 */
export async function verifyDir(
  out: OutputDir,
  onItem?: (item: VerifyItem) => void,
  signal?: AbortSignal,
  stops?: () => boolean,
): Promise<VerifyItem[]> {
  const results: VerifyItem[] = [];
  for (const recorded of out.records()) {
    if (stops?.()) break;
    const item = await verifyRecord(out.dir, recorded, signal);
    onItem?.(item);
    results.push(item);
  }
  return results;
}

/**
 * Verifies one record's file in `dir` (see {@link verifyDir}); throws `signal.reason` when
 * aborted. `entryByEntry` is the check that decides what the streaming walk of a pack cannot
 * vouch for, and every GLB: `findDamage` (a test may count its calls).
 */
export async function verifyRecord(
  dir: string,
  recorded: StateItem,
  signal?: AbortSignal,
  entryByEntry?: typeof findDamage,
): Promise<VerifyItem> {
  const path = join(dir, recorded.file);
  const base = {
    path,
    expectedSha256: recorded.sha256,
    expectedBytes: recorded.size,
    record: recorded,
  };
  let st: ReturnType<typeof lstatIfExists>;
  try {
    st = lstatIfExists(path);
  } catch {
    st = undefined;
  }
  if (!st) return { ...base, status: "missing", sha256: null, bytes: null };
  // A pack's entries are walked as the hash reads it (one read of the file for both); only a
  // walk that cannot vouch for every entry leaves the archive to findDamage.
  const walk = recorded.kind === "pack" && st.isFile() ? new ZipStreamCheck() : undefined;
  let now: Awaited<ReturnType<typeof hashRegularFile>>;
  try {
    now = st.isFile()
      ? await hashRegularFile(path, signal, walk && ((block, at) => walk.update(block, at)))
      : undefined;
  } catch (err) {
    walk?.abandon();
    if (signal?.aborted) throw err;
    now = undefined;
  }
  const same = now !== undefined && now.bytes === recorded.size && now.sha256 === recorded.sha256;
  const found = { ...base, sha256: now?.sha256 ?? null, bytes: now?.bytes ?? null };
  if (!same) {
    walk?.abandon();
    return { ...found, status: "changed" };
  }
  let damage: Awaited<ReturnType<typeof damageUnlessVouched>>;
  try {
    const verdict = walk ? await walk.settle(path) : undefined;
    signal?.throwIfAborted();
    damage = await damageUnlessVouched(
      path,
      formatOfKind(recorded.kind),
      verdict,
      signal,
      entryByEntry,
    );
  } catch (err) {
    if (signal?.aborted) throw err;
    damage = { reason: `cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
  if (damage) return { ...found, status: "damaged", damage: describeDamage(damage) };
  return { ...found, status: "ok" };
}

/**
 * `verify --forget-missing`: drops the records of the items still `missing` under the lock
 * `out` holds (a file put back meanwhile keeps its record) and marks them `forgotten`. The
 * records are written when `out` is closed.
 */
export function forgetMissing(out: OutputDir, items: readonly VerifyItem[]): VerifyItem[] {
  return items.map((item) => {
    if (item.status !== "missing") return item;
    const rec = out.recordedAt(item.record.file);
    if (!rec || lstatIfExists(item.path) !== undefined) return item;
    out.forget(rec.file);
    return { ...item, status: "forgotten" as const };
  });
}

/**
 * Refuses a DIR that does not exist or is not a directory (a typo must not pass as "nothing
 * recorded"): UsageError `dir_not_found` (exit 2). An existing directory with nothing
 * recorded is fine.
 */
export function checkVerifiable(dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new UsageError(`${dir} does not exist or is not a directory`, {
      code: "dir_not_found",
    });
  }
}
