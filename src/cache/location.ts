import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * Where the download cache lives (cli-contract "Configuration and credentials"):
 * `SVC_DL_CACHE_DIR` when set (relative to `cwd`), else the OS cache directory: on Linux
 * `$XDG_CACHE_HOME/svc-dl` (an absolute `XDG_CACHE_HOME` of `env`, as the XDG spec says), else
 * `~/.cache/svc-dl`; elsewhere `env-paths` (macOS `~/Library/Caches/svc-dl`, Windows
 * `%LOCALAPPDATA%\svc-dl\Cache`). `env` is the run's environment (the CLI's context).
 */
export async function cacheDirFrom(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<string> {
  const given = env.SVC_DL_CACHE_DIR?.trim();
  if (given) return isAbsolute(given) ? resolve(given) : resolve(cwd, given);
  if (process.platform === "linux") {
    const xdg = env.XDG_CACHE_HOME?.trim();
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "svc-dl");
  }
  const { default: envPaths } = await import("env-paths");
  return envPaths("svc-dl", { suffix: "" }).cache;
}
