import { resolve } from "node:path";
import { writeOutputFile } from "../io/output-file.js";

/**
 * `--report FILE` (cli-contract "Operating unattended"): the run's JSON document, the one
 * `--json` prints, written with the one writer of files outside `.svc-dl/`
 * (src/io/output-file.ts: atomic, only over a regular file or nothing). `file` is relative to
 * `cwd`. Throws FileSystemError (exit 8): `unsafe_output_path` for a symlink, FIFO, device or
 * directory at FILE; `write_failed`, `no_space` or `permission_denied` otherwise.
 */
export async function writeReport(cwd: string, file: string, doc: unknown): Promise<void> {
  writeOutputFile("--report file", resolve(cwd, file), `${JSON.stringify(doc, null, 2)}\n`);
}
