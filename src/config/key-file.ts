import { closeSync, fstatSync, lstatSync, openSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { FileSystemError } from "../errors/file-system-error.js";
import { READ_NO_FOLLOW } from "../io/safe-fs.js";

/** The file name of svc-dl's systemd credential in `$CREDENTIALS_DIRECTORY` (`LoadCredential=svc-api-key:…`). */
export const SYSTEMD_CREDENTIAL_NAME = "svc-api-key";

/** A key file larger than this is not a key (an API key is well under 200 bytes). */
const MAX_KEY_FILE_BYTES = 4096;

/** Permission bits that let a group or others read or change a key file. */
const SHARED_BITS = 0o077;

/** Where a key file came from: `SVC_API_KEY_FILE`, or the systemd credential. */
export type KeyFileKind = "file" | "systemd-credential";

/** A key read from a file: its value (never to be printed) and the file's path. */
export interface KeyFromFile {
  readonly value: string;
  readonly path: string;
  readonly kind: KeyFileKind;
}

/**
 * The key file the environment names, by the order of cli-contract "Credentials, schedules and
 * offline runs": `SVC_API_KEY_FILE` when set (it must exist), else
 * `$CREDENTIALS_DIRECTORY/svc-api-key` when that file exists (systemd `LoadCredential=`).
 * Returns undefined when neither applies. Throws as {@link readKeyFile}.
 */
export function keyFromFiles(
  env: Readonly<Record<string, string | undefined>>,
): KeyFromFile | undefined {
  const named = env.SVC_API_KEY_FILE;
  if (named !== undefined && named !== "") {
    return { value: readKeyFile(named, "SVC_API_KEY_FILE"), path: named, kind: "file" };
  }
  const dir = env.CREDENTIALS_DIRECTORY;
  if (dir === undefined || dir === "") return undefined;
  const path = join(dir, SYSTEMD_CREDENTIAL_NAME);
  if (!exists(path)) return undefined;
  return { value: readKeyFile(path, "the systemd credential"), path, kind: "systemd-credential" };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads an API key from a file under the contract's file-safety rules (as ssh treats a private
 * key): a regular file, never followed through a symlink, owned by the user running svc-dl,
 * with no permission bits for group or others; surrounding whitespace trimmed. The checks are
 * made on the open file (`fstat`), so the file cannot be swapped between check and read.
 * Throws FileSystemError `unsafe_key_file` (exit 8) for a missing, linked, shared, foreign,
 * oversized or empty file; the message names the path and what is wrong, never the contents.
 */
export function readKeyFile(path: string, what: string): string {
  const refuse = (problem: string) =>
    new FileSystemError(`the API key file ${path} (${what}) ${problem}`, {
      code: "unsafe_key_file",
    });
  let fd: number;
  try {
    fd = openSync(path, READ_NO_FOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw refuse("is a symbolic link");
    if (code === "ENOENT" || code === "ENOTDIR") throw refuse("does not exist");
    if (code === "EACCES" || code === "EPERM") throw refuse("cannot be read (permission denied)");
    if (code === "ENXIO") throw refuse("is not a regular file");
    throw refuse(`cannot be opened (${code ?? "error"})`);
  }
  try {
    const st = fstatSync(fd);
    const problem = unsafeKeyFileProblem(st);
    if (problem) throw refuse(problem);
    const buf = Buffer.alloc(st.size);
    let done = 0;
    while (done < buf.length) {
      const n = readSync(fd, buf, done, buf.length - done, done);
      if (n === 0) break;
      done += n;
    }
    const value = buf.subarray(0, done).toString("utf8").trim();
    if (value === "") throw refuse("is empty");
    return value;
  } finally {
    closeSync(fd);
  }
}

/** What makes an opened key file unsafe to read a key from, or undefined when it is fine. */
export function unsafeKeyFileProblem(st: Stats): string | undefined {
  if (!st.isFile()) return "is not a regular file";
  const uid = process.geteuid?.();
  if (uid !== undefined && st.uid !== uid) return `is owned by another user (uid ${st.uid})`;
  if ((st.mode & SHARED_BITS) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
    return `can be read or changed by group or others (mode ${mode})`;
  }
  if (st.size > MAX_KEY_FILE_BYTES)
    return `is larger than ${MAX_KEY_FILE_BYTES} bytes: not an API key file`;
  return undefined;
}
