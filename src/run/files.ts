import { resolve } from "node:path";

/**
 * Writes `text` to `file` (relative to `cwd`) atomically: a temp file in FILE's folder, flushed,
 * then renamed over FILE (write-file-atomic), so a reader (a CI step, node_exporter) never sees
 * half a file. Throws an Error naming the file and the system's reason.
 */
export async function writeFileAtomically(cwd: string, file: string, text: string): Promise<void> {
  const path = resolve(cwd, file);
  const { default: writeFileAtomic } = await import("write-file-atomic");
  try {
    await writeFileAtomic(path, text, { mode: 0o644 });
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
  await writeFileAtomically(cwd, file, `${JSON.stringify(doc, null, 2)}\n`);
}
