import { join } from "node:path";
import { hashRegularFile } from "../io/file-hash.js";
import { lstatIfExists } from "../io/safe-fs.js";
import type { StateItem } from "./state.js";

/**
 * What a recorded file looks like now (cli-contract "Downloads": a recorded file is up to date
 * only when its size and modification time still match the record, or its SHA-256 does after
 * a re-hash): `intact`, `changed` (other bytes, or no longer a regular file: a symlink is never
 * followed), or `missing`.
 */
export type LocalVerdict = "intact" | "changed" | "missing";

/** Outcome of {@link checkRecordedFile}. */
export interface LocalCheck {
  verdict: LocalVerdict;
  /** Set when the file was re-hashed, found intact, and its mtime (ms) differs from the record's. */
  restamp?: number;
}

/**
 * Checks the file `rec` records in `dir` without following a symlink. Size and mtime equal to
 * the record (and no `checksum`) → intact without reading; another size → changed; otherwise
 * the file is re-hashed and compared with the recorded size and SHA-256. Throws
 * `signal.reason` when `signal` aborts a re-hash.
 */
export async function checkRecordedFile(
  dir: string,
  rec: StateItem,
  checksum: boolean,
  signal?: AbortSignal,
): Promise<LocalCheck> {
  const path = join(dir, rec.file);
  let st: ReturnType<typeof lstatIfExists>;
  try {
    st = lstatIfExists(path);
  } catch {
    return { verdict: "changed" };
  }
  if (!st) return { verdict: "missing" };
  if (!st.isFile() || st.size !== rec.size) return { verdict: "changed" };
  if (!checksum && rec.mtime_ms === st.mtimeMs) return { verdict: "intact" };
  let now: Awaited<ReturnType<typeof hashRegularFile>>;
  try {
    now = await hashRegularFile(path, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    return { verdict: "changed" };
  }
  if (!now || now.bytes !== rec.size || now.sha256 !== rec.sha256) return { verdict: "changed" };
  return rec.mtime_ms === st.mtimeMs
    ? { verdict: "intact" }
    : { verdict: "intact", restamp: st.mtimeMs };
}

/** Modification time (ms) of a regular file at `path`, never through a symlink; undefined otherwise. */
export function regularFileMtime(path: string): number | undefined {
  try {
    const st = lstatIfExists(path);
    return st?.isFile() ? st.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}
