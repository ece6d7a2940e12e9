import { join } from "node:path";
import { hashRegularFile, lstatIfExists } from "../io/safe-fs.js";
import { readState, type StateItem } from "./state.js";

/** One file's verdict (cli-contract "JSON documents": `verify --json`). */
export interface VerifyItem {
  /** Absolute path of the recorded file. */
  path: string;
  /** `repaired` only after `verify --repair` downloaded it again and it then verified. */
  status: "ok" | "changed" | "missing" | "repaired";
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
 * `svc-dl verify [DIR]` (cli-contract): re-hashes every file that `<dir>/.svc-dl/state.json`
 * records and compares size and SHA-256, offline. Items come in file-name order. Reads nothing
 * outside DIR: names come from the state file only when they are safe base names (readState),
 * and a symlink or other special file at a recorded name is `changed`, never followed or
 * hashed. A DIR with nothing recorded (no `.svc-dl/`, no state file) gives no items. Throws
 * FileSystemError `unsafe_state_dir` (exit 8) when `.svc-dl` may not be trusted.
 */
export async function verifyDir(
  dir: string,
  onItem?: (item: VerifyItem) => void,
  signal?: AbortSignal,
): Promise<VerifyItem[]> {
  const state = readState(dir);
  const results: VerifyItem[] = [];
  for (const name of Object.keys(state.items).sort()) {
    const recorded = state.items[name];
    if (!recorded) continue;
    const item = await verifyRecord(dir, recorded, signal);
    onItem?.(item);
    results.push(item);
  }
  return results;
}

/** Verifies one record's file in `dir` (see {@link verifyDir}); throws `signal.reason` when aborted. */
export async function verifyRecord(
  dir: string,
  recorded: StateItem,
  signal?: AbortSignal,
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
  let now: Awaited<ReturnType<typeof hashRegularFile>>;
  try {
    now = st.isFile() ? await hashRegularFile(path, signal) : undefined;
  } catch (err) {
    if (signal?.aborted) throw err;
    now = undefined;
  }
  const same = now !== undefined && now.bytes === recorded.size && now.sha256 === recorded.sha256;
  return {
    ...base,
    status: same ? "ok" : "changed",
    sha256: now?.sha256 ?? null,
    bytes: now?.bytes ?? null,
  };
}
