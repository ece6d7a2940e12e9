import { FileSystemError } from "../errors/file-system-error.js";

/** The destination exists and the state file does not record it as ours (exit 8, `file_exists`). */
export function fileExists(path: string, what = "exists"): FileSystemError {
  // no hint here: the table's names --force and -o only for commands that have them
  return new FileSystemError(`${path} ${what} and was not downloaded by svc-dl`, {
    code: "file_exists",
  });
}

/**
 * The destination is a device, FIFO or socket (cli-contract "Downloads": svc-dl writes regular
 * files only). Never replaced, even with `--force`: as root, `-o /dev/null --force` would
 * otherwise swap the system's /dev/null for a regular file. Exit 8, code `special_file`.
 */
export function specialFile(path: string): FileSystemError {
  return new FileSystemError(
    `${path} is a device, FIFO or socket, not a file; svc-dl only writes regular files and never replaces one of these, even with --force`,
    { code: "special_file" },
  );
}
