import { chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import type Conf from "conf";
import envPaths from "env-paths";
import { FileSystemError } from "../errors/file-system-error.js";
import { UsageError } from "../errors/usage-error.js";
import { makeDirectory } from "../io/mkdir.js";
import {
  checkPrivateDir,
  ensurePrivateDir,
  lstatIfExists,
  readRegularFile,
} from "../io/safe-fs.js";
import * as z from "../io/schema.js";
import { formatJsonPath, parseStrictJson } from "../io/strict-json.js";
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
 * The config file: in `SVC_DL_CONFIG_DIR` when set, else the OS config directory (env-paths, as
 * conf itself; Linux: `$XDG_CONFIG_HOME/svc-dl`). It is read once, by the store itself (never
 * through a link, validated: it is untrusted), and written through `conf`, which is loaded on
 * the first write only: conf loads ajv and semver, about 30 ms of every start for commands that
 * only read (docs/performance.md "Start-up"). The file is written with mode 0600 and its
 * directory is created (or tightened) to 0700: conf alone would create it 0755. As ssh does
 * (cli-contract "Configuration and credentials"), a config directory that is a symlink, owned
 * by another user or writable by group or others, and a config file that is a symlink (or not
 * a regular file), are refused before anything is read or written.
 *
 * Throws FileSystemError (exit 8, `unsafe_config`) for those, UsageError (exit 2,
 * `config_invalid`) when the file is not valid JSON or a known setting is not a string, and
 * FileSystemError (exit 8, `config_unreadable`) when it cannot be read or written.
 */
export class ConfigStore {
  /** Absolute path of the config file (it may not exist yet). */
  readonly path: string;
  #data: ConfigSchema;
  #conf: Conf<ConfigSchema> | undefined;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    const dir = configDirFrom(env);
    openPrivateDir(dir);
    this.path = join(dir, "config.json");
    this.#data = readConfig(this.path);
  }

  /** A settable value, or undefined. */
  get(key: SettableKey): string | undefined {
    return this.#data[key];
  }

  /** Sets a settable value and tightens the file and directory modes. */
  async set(key: SettableKey, value: string): Promise<void> {
    await this.#write((conf) => conf.set(key, value));
  }

  /** Removes a settable value; returns whether it was set. */
  async unset(key: SettableKey): Promise<boolean> {
    const had = this.get(key) !== undefined;
    await this.#write((conf) => conf.delete(key));
    return had;
  }

  /** The stored API key for a service origin, or undefined. */
  getKey(origin: string): string | undefined {
    return Object.hasOwn(this.#data.keys ?? {}, origin) ? this.#data.keys?.[origin] : undefined;
  }

  /** The service's `preview` of the key stored for a service origin, when login recorded one. */
  getPreview(origin: string): string | undefined {
    return this.#previews()[origin];
  }

  /**
   * Stores the API key for a service origin (replacing any previous one), with the service's
   * `preview` of it when known (shown by `config list`).
   */
  async setKey(origin: string, key: string, preview?: string): Promise<void> {
    const keys = { ...this.#data.keys, [origin]: key };
    const previews = this.#previewsWithout(origin);
    if (preview !== undefined) previews[origin] = preview;
    await this.#write((conf) => conf.set({ keys, previews }));
  }

  /** Deletes the stored key (and its preview) of a service origin; returns whether one was stored. */
  async deleteKey(origin: string): Promise<boolean> {
    const keys = { ...this.#data.keys };
    if (!Object.hasOwn(keys, origin)) return false;
    delete keys[origin];
    const previews = this.#previewsWithout(origin);
    await this.#write((conf) => conf.set({ keys, previews }));
    return true;
  }

  #previewsWithout(origin: string): Record<string, string> {
    const previews = this.#previews();
    delete previews[origin];
    return previews;
  }

  /** The stored previews (a copy); entries that are not strings are dropped (the file is untrusted). */
  #previews(): Record<string, string> {
    const previews: Record<string, string> = {};
    for (const [origin, preview] of Object.entries(this.#data.previews ?? {})) {
      if (typeof preview === "string") previews[origin] = preview;
    }
    return previews;
  }

  /** Origins that have a stored key (never the keys themselves). */
  keyOrigins(): string[] {
    return Object.keys(this.#data.keys ?? {});
  }

  /**
   * One change through conf (loaded and opened on the first write): the directory and file
   * checked right before (a link may have appeared), the modes tightened after, and what the
   * file now holds read back.
   */
  async #write(change: (conf: Conf<ConfigSchema>) => void): Promise<void> {
    if (this.#conf === undefined) {
      const { default: ConfClass } = await import("conf");
      this.#beforeWrite();
      this.#conf = guard(
        () =>
          new ConfClass<ConfigSchema>({
            projectName: "svc-dl",
            projectSuffix: "",
            configName: "config",
            configFileMode: CONFIG_FILE_MODE,
            cwd: dirname(this.path),
          }),
        this.path,
      );
    }
    const conf = this.#conf;
    this.#beforeWrite();
    guard(() => change(conf), this.path);
    this.#tighten();
    this.#data = readConfig(this.path);
  }

  /** Re-checks the directory and file right before conf writes (a link may have appeared). */
  #beforeWrite(): void {
    openPrivateDir(dirname(this.path));
    assertSafeFile(this.path);
  }

  #tighten(): void {
    openPrivateDir(dirname(this.path));
    if (assertSafeFile(this.path)) {
      guard(() => chmodSync(this.path, CONFIG_FILE_MODE), this.path);
    }
  }
}

/** The settings svc-dl knows must be strings; other keys are kept as they are (conf's file). */
let configSchema: z.ZodMiniType<ConfigSchema> | undefined;

/**
 * What the config file at `path` holds: {} when it does not exist. Throws FileSystemError
 * `unsafe_config` for a link or a file that is not regular, UsageError `config_invalid` for
 * text that is not strict JSON (a duplicate key included) or a known setting of the wrong type.
 */
function readConfig(path: string): ConfigSchema {
  if (!assertSafeFile(path)) return {};
  const text = guard(() => readRegularFile(path, 1 << 20), path);
  if (text === undefined)
    throw invalidConfig(path, "it is larger than 1 MiB or not a regular file");
  const json = parseStrictJson(text);
  if (!json.ok) throw invalidConfig(path, json.problem);
  configSchema ??= z.looseObject({
    "base-url": z.optional(z.string()),
    proxy: z.optional(z.string()),
    "ca-file": z.optional(z.string()),
    "limit-rate": z.optional(z.string()),
    keys: z.optional(z.record(z.string(), z.string())),
    previews: z.optional(z.record(z.string(), z.unknown())),
  }) as z.ZodMiniType<ConfigSchema>;
  const parsed = configSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = (issue?.path ?? []).filter((k) => typeof k !== "symbol");
    throw invalidConfig(path, `${formatJsonPath(where)}: ${issue?.message}`);
  }
  return parsed.data;
}

function invalidConfig(path: string, problem: string): UsageError {
  return new UsageError(`the config file ${path} is not valid: ${problem}`, {
    code: "config_invalid",
    hint: `Fix or delete ${path} (it holds base-url and the stored API keys).`,
  });
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
      throw invalidConfig(where, `not valid JSON (${err.message})`);
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
