import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./download.js";

/** True when the tests run as root, where file modes do not stop writes. */
export const IS_ROOT = process.getuid?.() === 0;

/** Runs `mount` (or `umount`) quietly; true on success. */
function mountCmd(args: string[], cmd = "mount"): boolean {
  return spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
}

/** A tmpfs mounted for a test; `remount` changes its options (`ro`, `rw`, `size=4m`). */
export interface Tmpfs {
  dir: string;
  remount(options: string): boolean;
  unmount(): void;
}

/**
 * Mounts a fresh tmpfs of `size` (e.g. `256k`) on a new temp directory, or returns undefined
 * when this machine does not allow it (not root, no CAP_SYS_ADMIN, no `mount`).
 */
export function mountTmpfs(size: string, extra = ""): Tmpfs | undefined {
  const dir = tempDir("svc-dl-rel-tmpfs-");
  const options = `size=${size},mode=0755${extra ? `,${extra}` : ""}`;
  if (!mountCmd(["-t", "tmpfs", "-o", options, "tmpfs", dir])) return undefined;
  return {
    dir,
    remount: (o) => mountCmd(["-o", `remount,${o}`, dir]),
    unmount: () => {
      if (!mountCmd([dir], "umount")) mountCmd(["-l", dir], "umount");
    },
  };
}

/** A directory this process cannot write into, and how that was achieved. */
export interface ReadOnlyDir {
  dir: string;
  how: "read-only tmpfs" | "chmod 0555";
  cleanup(): void;
}

/**
 * A directory where any write fails even for root: a read-only tmpfs when mounting is allowed,
 * else (not root) a chmod 0555 directory. Undefined when neither works here (root without
 * mount rights), so the caller uses a path under a regular file instead.
 */
export function readOnlyDir(): ReadOnlyDir | undefined {
  const fs = mountTmpfs("1m", "ro");
  if (fs) return { dir: fs.dir, how: "read-only tmpfs", cleanup: () => fs.unmount() };
  if (!IS_ROOT) {
    const dir = tempDir("svc-dl-rel-ro-");
    chmodSync(dir, 0o555);
    return { dir, how: "chmod 0555", cleanup: () => chmodSync(dir, 0o755) };
  }
  return undefined;
}

/** A regular file and a path "inside" it: mkdir there fails with ENOTDIR/EEXIST, even for root. */
export function pathUnderAFile(): { file: string; path: string } {
  const root = tempDir("svc-dl-rel-notdir-");
  mkdirSync(root, { recursive: true });
  const file = join(root, "plain-file");
  writeFileSync(file, "not a directory\n");
  return { file, path: join(file, "sub") };
}

/** `NODE_OPTIONS` that load the injected-ENOSPC preload into a spawned CLI. */
export const ENOSPC_PRELOAD = `--import=${new URL("./enospc-preload.mjs", import.meta.url).href}`;

/** Absolute path of the preload (for messages). */
export const ENOSPC_PRELOAD_PATH = fileURLToPath(new URL("./enospc-preload.mjs", import.meta.url));
