import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { readState, statePathOf } from "./state.js";
import { hashFile } from "./writer.js";

/** One file's verdict (cli-contract "JSON documents": `verify --json`). */
export interface VerifyItem {
  /** Absolute path of the recorded file. */
  path: string;
  status: "ok" | "changed" | "missing";
  /** SHA-256 of the file as it is now (lower-case hex), null when missing. */
  sha256: string | null;
  /** SHA-256 recorded in the state file. */
  expectedSha256: string;
  /** Size now in bytes (null when missing) and as recorded. */
  bytes: number | null;
  expectedBytes: number;
}

/**
 * `svc-dl verify [DIR]` (cli-contract): re-hashes every file that `<dir>/.svc-dl/state.json`
 * records and compares size and SHA-256, offline. Items come in file-name order. Throws
 * FileSystemError `no_state` (exit 8) when DIR has no state file, `state_unreadable` when it
 * is not JSON; a file that cannot be read counts as `changed`.
 */
export function verifyDir(dir: string, onItem?: (item: VerifyItem) => void): VerifyItem[] {
  if (!existsSync(statePathOf(dir))) {
    throw new FileSystemError(`${dir} has no svc-dl state file (${statePathOf(dir)})`, {
      code: "no_state",
      hint: "Run verify on a directory svc-dl downloaded into (default: the current directory).",
    });
  }
  const state = readState(dir);
  const results: VerifyItem[] = [];
  for (const name of Object.keys(state.items).sort()) {
    const recorded = state.items[name];
    if (!recorded) continue;
    const path = join(dir, name);
    let item: VerifyItem;
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) {
      item = {
        path,
        status: "missing",
        sha256: null,
        expectedSha256: recorded.sha256,
        bytes: null,
        expectedBytes: recorded.size,
      };
    } else {
      let now: { sha256: string; bytes: number } | undefined;
      try {
        now = hashFile(path);
      } catch {
        now = undefined;
      }
      const same =
        now !== undefined && now.bytes === recorded.size && now.sha256 === recorded.sha256;
      item = {
        path,
        status: same ? "ok" : "changed",
        sha256: now?.sha256 ?? null,
        expectedSha256: recorded.sha256,
        bytes: now?.bytes ?? null,
        expectedBytes: recorded.size,
      };
    }
    onItem?.(item);
    results.push(item);
  }
  return results;
}
