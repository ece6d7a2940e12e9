import { cacheDirFrom } from "../cache/location.js";

/**
 * The cache directory the CLI uses, for `client.install({ cacheDir })`: `SVC_DL_CACHE_DIR` of
 * `env`, else the OS cache directory (Linux `$XDG_CACHE_HOME/svc-dl` or `~/.cache/svc-dl`).
 * The library reads the environment only here, and only when you pass it
 * (`defaultCacheDir(process.env)`); with no argument only the OS default is used.
 */
export function defaultCacheDir(
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<string> {
  return cacheDirFrom(env, process.cwd());
}
