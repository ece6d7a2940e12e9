import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { HintDetail } from "../errors/codes.js";
import { formatBytes } from "./progress-format.js";

/**
 * The facts a full disk's hint names (`no_space`), as shown (`4.0 KiB`): `free`, the bytes still
 * free to an unprivileged user on the file system holding `path` (statfs), and `written`, the
 * bytes of the file written before the failure (absent when none). Undefined for any other
 * error, or when the free space cannot be read.
 */
export function spaceFacts(err: unknown, path: string, written: number): HintDetail | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ENOSPC" && code !== "EDQUOT") return undefined;
  try {
    const st = statfsSync(dirname(path));
    const free = formatBytes(Number(st.bavail) * Number(st.bsize));
    return written > 0 ? { free, written: formatBytes(written) } : { free };
  } catch {
    return undefined;
  }
}
