import { chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import Conf from "conf";
import envPaths from "env-paths";
import { FileSystemError } from "../errors/file-system-error.js";
import { UsageError } from "../errors/usage-error.js";
import { makeDirectory } from "../io/mkdir.js";
import { checkPrivateDir, ensurePrivateDir, lstatIfExists } from "../io/safe-fs.js";
import type { SettableKey } from "./settable-keys.js";

/** What the config file holds. Keys are stored per service origin (cli-contract "Configuration"). */
export interface ConfigSchema {
  /** The service address (`{base_url}` of the spec, without `/api`). */
  "base-url"?: string;
  /** Proxy for every request (`http://host:port`), below `--proxy` and the proxy env vars. */
  proxy?: string;
  /** Extra trusted CA certificates (PEM file path), below `--ca-file` and `SVC_CA_FILE`. */
  "ca-file"?: string;
  /** Bytes per second for every download (`500K`, `5M`), below `--limit-rate` and `SVC_DL_LIMIT_RATE`. */
  "limit-rate"?: string;
  /** API keys by service origin (`https://host:port`). */
  keys?: Record<string, string>;
  /** The service's `preview` of each stored key, by origin, as `auth login` received it. */
  previews?: Record<string, string>;
}

/** Mode of the config file: owner read/write only (cli-contract "Configuration"). */
export const CONFIG_FILE_MODE = 0o600;
/** Mode of the config directory: owner only. */
export const CONFIG_DIR_MODE = 0o700;

/**
 * The config file, through `conf`: in `SVC_DL_CONFIG_DIR` when set, else the OS config
 * directory (env-paths, as conf itself; Linux: `$XDG_CONFIG_HOME/svc-dl`). The file is written
 * with mode 0600 and its directory is created (or tightened) to 0700: conf alone would create
 * it 0755. As ssh does (cli-contract "Configuration and credentials"), a config directory that
 * is a symlink, owned by another user or writable by group or others, and a config file that
 * is a symlink (or not a regular file), are refused before anything is read or written.
 *
 * Throws FileSystemError (exit 8, `unsafe_config`) for those, UsageError (exit 2,
 * `config_invalid`) when the file is not valid JSON, and FileSystemError (exit 8,
 * `config_unreadable`) when it cannot be read or written.
 */
export class ConfigStore {
  readonly #conf: Conf<ConfigSchema>;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    const dir = configDirFrom(env);
    openPrivateDir(dir);
    assertSafeFile(join(dir, "config.json"));
    this.#conf = guard(
      () =>
        new Conf<ConfigSchema>({
          projectName: "svc-dl",
          projectSuffix: "",
          configName: "config",
          configFileMode: CONFIG_FILE_MODE,
          cwd: dir,
        }),
      join(dir, "config.json"),
    );
    // conf reads the store in its constructor and creates a missing directory 0755.
    this.#tightenDir();
  }

  /** Absolute path of the config file (it may not exist yet). */
  get path(): string {
    return this.#conf.path;
  }

  /** A settable value, or undefined. */
  get(key: SettableKey): string | undefined {
    return guard(() => this.#conf.get(key), this.path);
  }

  /** Sets a settable value and tightens the file and directory modes. */
  set(key: SettableKey, value: string): void {
    this.#beforeWrite();
    guard(() => this.#conf.set(key, value), this.path);
    this.#tighten();
  }

  /** Removes a settable value; returns whether it was set. */
  unset(key: SettableKey): boolean {
    const had = this.get(key) !== undefined;
    this.#beforeWrite();
    guard(() => this.#conf.delete(key), this.path);
    this.#tighten();
    return had;
  }

  /** The stored API key for a service origin, or undefined. */
  getKey(origin: string): string | undefined {
    return guard(() => this.#conf.get("keys"), this.path)?.[origin];
  }

  /** The service's `preview` of the key stored for a service origin, when login recorded one. */
  getPreview(origin: string): string | undefined {
    return this.#previews()[origin];
  }

  /**
   * Stores the API key for a service origin (replacing any previous one), with the service's
   * `preview` of it when known (shown by `config list`).
   */
  setKey(origin: string, key: string, preview?: string): void {
    const keys = { ...(guard(() => this.#conf.get("keys"), this.path) ?? {}), [origin]: key };
    const previews = this.#previewsWithout(origin);
    if (preview !== undefined) previews[origin] = preview;
    this.#beforeWrite();
    guard(() => this.#conf.set({ keys, previews }), this.path);
    this.#tighten();
  }

  /** Deletes the stored key (and its preview) of a service origin; returns whether one was stored. */
  deleteKey(origin: string): boolean {
    const keys = { ...(guard(() => this.#conf.get("keys"), this.path) ?? {}) };
    if (!(origin in keys)) return false;
    delete keys[origin];
    const previews = this.#previewsWithout(origin);
    this.#beforeWrite();
    guard(() => this.#conf.set({ keys, previews }), this.path);
    this.#tighten();
    return true;
  }

  #previewsWithout(origin: string): Record<string, string> {
    const previews = this.#previews();
    delete previews[origin];
    return previews;
  }

  /** The stored previews (a copy); entries that are not strings are dropped (the file is untrusted). */
  #previews(): Record<string, string> {
    const stored: unknown = guard(() => this.#conf.get("previews"), this.path);
    const previews: Record<string, string> = {};
    if (typeof stored !== "object" || stored === null) return previews;
    for (const [origin, preview] of Object.entries(stored)) {
      if (typeof preview === "string") previews[origin] = preview;
    }
    return previews;
  }

  /** Origins that have a stored key (never the keys themselves). */
  keyOrigins(): string[] {
    return Object.keys(guard(() => this.#conf.get("keys"), this.path) ?? {});
  }

  /** Re-checks the directory and file right before conf writes (a link may have appeared). */
  #beforeWrite(): void {
    openPrivateDir(dirname(this.#conf.path));
    assertSafeFile(this.#conf.path);
  }

  #tightenDir(): void {
    openPrivateDir(dirname(this.#conf.path));
  }

  #tighten(): void {
    this.#tightenDir();
    if (assertSafeFile(this.#conf.path)) {
      guard(() => chmodSync(this.#conf.path, CONFIG_FILE_MODE), this.#conf.path);
    }
  }
}

/**
 * Creates the config directory (missing parents with a bounded mkdir) 0700 under any umask, or
 * checks and tightens an existing one. Throws FileSystemError `unsafe_config` (exit 8) for a
 * symlink, another user's directory, or one writable by group or others.
 */
/** The config directory: `SVC_DL_CONFIG_DIR` when set, else the OS config directory. */
export function configDirFrom(env: Readonly<Record<string, string | undefined>>): string {
  return env.SVC_DL_CONFIG_DIR?.trim()
    ? env.SVC_DL_CONFIG_DIR
    : envPaths("svc-dl", { suffix: "" }).config;
}

/**
 * Checks the config directory and file as {@link ConfigStore} does, without creating or
 * changing anything (for `doctor`). Returns the directory and whether the file exists (a
 * missing directory: false). Throws FileSystemError `unsafe_config` as the store does.
 */
export function checkConfigSafety(env: Readonly<Record<string, string | undefined>>): {
  dir: string;
  file: boolean;
} {
  const dir = configDirFrom(env);
  const exists = guard(
    () => checkPrivateDir(dir, (problem) => unsafeConfig(`the config directory ${dir}`, problem)),
    dir,
  );
  return { dir, file: exists && assertSafeFile(join(dir, "config.json")) };
}

function openPrivateDir(dir: string): void {
  guard(() => {
    makeDirectory(dirname(dir));
    ensurePrivateDir(dir, (problem) => unsafeConfig(`the config directory ${dir}`, problem));
  }, dir);
}

/**
 * Checks the config file without following it: returns false when it does not exist, true for
 * a regular file. Throws FileSystemError `unsafe_config` (exit 8) for a symlink or anything
 * else (a FIFO would block the read).
 */
function assertSafeFile(path: string): boolean {
  const st = guard(() => lstatIfExists(path), path);
  if (!st) return false;
  if (st.isSymbolicLink()) throw unsafeConfig(`the config file ${path}`, "is a symbolic link");
  if (!st.isFile()) throw unsafeConfig(`the config file ${path}`, "is not a regular file");
  return true;
}

function unsafeConfig(what: string, problem: string): FileSystemError {
  return new FileSystemError(`refusing to use ${what}: it ${problem}`, {
    code: "unsafe_config",
    hint: "The API key is never stored where another user could read or replace it. Use a private directory of your own (chmod 700), or set SVC_DL_CONFIG_DIR to one.",
  });
}

/** Runs a config-file operation and turns its failures into svc-dl errors. */
function guard<T>(fn: () => T, where: string): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof FileSystemError) throw err;
    if (
      err instanceof SyntaxError ||
      (err instanceof Error && /schema violation/i.test(err.message))
    ) {
      throw new UsageError(`the config file ${where} is not valid JSON: ${err.message}`, {
        code: "config_invalid",
        hint: `Fix or delete ${where} (it holds base-url and the stored API keys).`,
      });
    }
    const code = (err as { code?: unknown } | null)?.code;
    throw new FileSystemError(
      `cannot use the config file ${where}: ${err instanceof Error ? err.message : String(err)}`,
      {
        code: "config_unreadable",
        hint:
          code === "EACCES" || code === "EPERM"
            ? "Check the permissions of the config directory, or set SVC_DL_CONFIG_DIR to another one."
            : "Set SVC_DL_CONFIG_DIR to a writable directory.",
        cause: err,
      },
    );
  }
}
