import { isAbsolute, resolve } from "node:path";

/**
 * Where the download cache lives (cli-contract "Configuration and credentials"):
 * `SVC_DL_CACHE_DIR` when set (relative to `cwd`), else the OS cache directory from `env-paths`
 * (Linux `$XDG_CACHE_HOME/svc-dl`, else `~/.cache/svc-dl`; macOS `~/Library/Caches/svc-dl`;
 * Windows `%LOCALAPPDATA%\svc-dl\Cache`). `env` is the run's environment (the CLI's context).
 */
export async function cacheDirFrom(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<string> {
  const given = env.SVC_DL_CACHE_DIR?.trim();
  if (given) return isAbsolute(given) ? resolve(given) : resolve(cwd, given);
  const { default: envPaths } = await import("env-paths");
  return envPaths("svc-dl", { suffix: "" }).cache;
}
