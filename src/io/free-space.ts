import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { HintDetail } from "../errors/codes.js";

/**
 * The facts a full disk's hint names (`no_space`): the bytes still free to an unprivileged user
 * on the file system holding `path` (statfs), and `written`, the bytes of the file written before
 * the failure. Undefined for any other error, or when the free space cannot be read.
 */
export function spaceFacts(err: unknown, path: string, written: number): HintDetail | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ENOSPC" && code !== "EDQUOT") return undefined;
  try {
    const st = statfsSync(dirname(path));
    return { free: Number(st.bavail) * Number(st.bsize), written };
  } catch {
    return undefined;
  }
}
