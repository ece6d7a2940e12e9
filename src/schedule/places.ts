import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { configDirFrom } from "../config/config-file.js";

/**
 * Where a schedule's files are (cli-contract "Credentials, schedules and offline runs": `svc-dl
 * schedule`): the systemd user unit directory, the folder of a cron job's log, report and
 * metrics, the default key file, and the names of the units. Every path is absolute, built
 * from the run's environment (`XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `HOME`), as systemd and the
 * XDG base directory specification name them.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** An absolute directory from an XDG variable, else `~/<fallback>` (XDG base directory spec). */
function xdgDir(env: Env, variable: string, fallback: string): string {
  const value = env[variable];
  if (value !== undefined && isAbsolute(value)) return value;
  const home = env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
  return join(home, fallback);
}

/** `$XDG_CONFIG_HOME/systemd/user` (default `~/.config/systemd/user`): where user units live. */
export function systemdUserDir(env: Env): string {
  return join(xdgDir(env, "XDG_CONFIG_HOME", ".config"), "systemd", "user");
}

/** `$XDG_STATE_HOME/svc-dl` (default `~/.local/state/svc-dl`): a cron job's log, report, metrics. */
export function scheduleStateDir(env: Env): string {
  return join(xdgDir(env, "XDG_STATE_HOME", join(".local", "state")), "svc-dl");
}

/**
 * The key file a schedule hands to svc-dl: `SVC_API_KEY_FILE` when set, else `api-key` in
 * svc-dl's config directory (`svc-dl config path` names the directory).
 */
export function defaultKeyFile(env: Env): string {
  const named = env.SVC_API_KEY_FILE;
  return named !== undefined && named !== "" ? named : join(configDirFrom(env), "api-key");
}

/**
 * The name of the schedule of `dir` (absolute), used for its units and its files:
 * `svc-dl-sync-<folder name>-<8 hex digits of the path's SHA-256>`, so two folders of the same
 * name get different units and the same folder always the same ones. Characters a unit name
 * cannot hold are written `_`.
 */
export function scheduleName(dir: string): string {
  const folder = (basename(dir) || "root").replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
  const digest = createHash("sha256").update(dir).digest("hex").slice(0, 8);
  return `svc-dl-sync-${folder}-${digest}`;
}
