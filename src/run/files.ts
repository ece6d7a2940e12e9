import { resolve } from "node:path";
import { writeSharedFileAtomic } from "../io/safe-fs.js";

/**
 * Writes `text` to `file` (relative to `cwd`) atomically with the project's one atomic writer
 * (src/io/safe-fs.ts: a temp file in FILE's folder, flushed, renamed over FILE; a symlink at
 * FILE is replaced, never followed), so a reader (a CI step, node_exporter) never sees half a
 * file. Throws an Error naming the file and the system's reason.
 */
export function writeFileAtomically(cwd: string, file: string, text: string): void {
  const path = resolve(cwd, file);
  try {
    writeSharedFileAtomic(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot write ${path}${code ? ` (${code})` : ""}`);
  }
}

/**
 * `--report FILE` (cli-contract "Operating unattended"): the run's JSON document, the one
 * `--json` prints, written atomically. Throws as {@link writeFileAtomically}.
 */
export async function writeReport(cwd: string, file: string, doc: unknown): Promise<void> {
  writeFileAtomically(cwd, file, `${JSON.stringify(doc, null, 2)}\n`);
}
