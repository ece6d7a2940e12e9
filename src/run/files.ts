import { resolve } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { SvcError } from "../errors/svc-error.js";
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

/**
 * The error of a run's own output (`what`: `--report file`, `--metrics file`…) that could not
 * be written: the writer's SvcError as it is (`unsafe_output_path`, `no_space`…), anything else
 * FileSystemError `write_failed` (exit 8) naming `what`.
 */
export function outputProblem(what: string, err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new FileSystemError(`cannot write the ${what}: ${reason}`, {
    code: "write_failed",
    cause: err,
  });
}

/**
 * The run's own files, written one after the other so each tells the exit code the run will
 * have: `exitCode` starts as the run's own and becomes the first failed file's (exit 8) when
 * the run had succeeded. `problems` lists every file that could not be written, in order.
 */
export class RunFileWrites {
  readonly problems: SvcError[] = [];
  constructor(public exitCode: number) {}

  /** Runs `task` (the write of the file `what`); a failure is recorded, never thrown. */
  async write(what: string, task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (err) {
      const problem = outputProblem(what, err);
      this.problems.push(problem);
      if (this.exitCode === 0) this.exitCode = problem.exitCode;
    }
  }
}
