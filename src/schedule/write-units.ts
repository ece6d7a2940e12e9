import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import { makeDirectory } from "../io/mkdir.js";
import { readOutputFile, writeOutputFile } from "../io/output-file.js";
import { SCHEDULE_MARK, type ScheduleFile } from "./systemd.js";

/**
 * `svc-dl schedule --write` (cli-contract "Credentials, schedules and offline runs"): writes a
 * schedule's files, never overwriting a file svc-dl did not write. A file is svc-dl's when its
 * first line is svc-dl's mark (systemd.ts `SCHEDULE_MARK`); deleting that line hands the file
 * to its user for good.
 */

/** What `--write` did to one file. */
export type WriteAction = "created" | "rewritten" | "unchanged";

/** One file of {@link writeScheduleFiles}: its absolute path and what was done. */
export interface WrittenFile {
  readonly path: string;
  readonly action: WriteAction;
}

/** The longest unit file read back (a unit svc-dl writes is well under 4 KiB). */
const MAX_UNIT_BYTES = 64 * 1024;

/**
 * Writes `files` into `dir` (made when missing), each atomically (src/io/output-file.ts: never
 * through a symlink, FIFO or device). Every existing file is checked before any is written: one
 * without svc-dl's mark is refused with FileSystemError `foreign_schedule_file` (exit 8) naming
 * it, and nothing is written; a non-regular entry is refused as `unsafe_output_path` (exit 8). A
 * file of svc-dl's with the same text is left alone (`unchanged`). Other failures throw
 * FileSystemError (`permission_denied`, `no_space`, `write_failed`; exit 8).
 */
export function writeScheduleFiles(dir: string, files: readonly ScheduleFile[]): WrittenFile[] {
  const plans = files.map((file) => {
    const path = join(dir, file.name);
    const before = readOutputFile("unit file", path, MAX_UNIT_BYTES);
    if (before !== undefined && !before.startsWith(SCHEDULE_MARK)) {
      throw new FileSystemError(
        `refusing to overwrite ${path}: svc-dl did not write it (its first line is not svc-dl's mark)`,
        { code: "foreign_schedule_file", detail: { path } },
      );
    }
    const action: WriteAction =
      before === undefined ? "created" : before === file.text ? "unchanged" : "rewritten";
    return { path, text: file.text, action };
  });
  try {
    makeDirectory(dir);
  } catch (err) {
    throw fsError(`cannot create the unit directory ${dir}`, err);
  }
  for (const p of plans) if (p.action !== "unchanged") writeOutputFile("unit file", p.path, p.text);
  return plans.map(({ path, action }) => ({ path, action }));
}
