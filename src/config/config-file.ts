import { dirname, join } from "node:path";
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
import type { KeyRecords } from "./key-records.js";

/** What the config file holds. Keys are stored per service origin (cli-contract "Configuration"). */
export interface ConfigSchema extends KeyRecords {
  /** The service address (`{base_url}` of the spec, without `/api`). */
  "base-url"?: string;
  /** Proxy for every request (`http://host:port`), below `--proxy` and the proxy env vars. */
  proxy?: string;
  /** Extra trusted CA certificates (PEM file path), below `--ca-file` and `SVC_CA_FILE`. */
  "ca-file"?: string;
  /** Bytes per second for every download (`500K`, `5M`), below `--limit-rate` and `SVC_DL_LIMIT_RATE`. */
  "limit-rate"?: string;
}

/** Mode of the config file: owner read/write only (cli-contract "Configuration"). */
export const CONFIG_FILE_MODE = 0o600;

/** The settings svc-dl knows must be strings; other keys are kept as they are (conf's file). */
let configSchema: z.ZodMiniType<ConfigSchema> | undefined;

/**
 * What the config file at `path` holds: {} when it does not exist. Throws FileSystemError
 * `unsafe_config` for a link or a file that is not regular, UsageError `config_invalid` for
 * text that is not strict JSON (a duplicate key included) or a known setting of the wrong type.
 */
export function readConfig(path: string): ConfigSchema {
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
    "key-storage": z.optional(z.record(z.string(), z.unknown())),
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
    detail: { path },
  });
}

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

/**
 * Creates the config directory (missing parents with a bounded mkdir) 0700 under any umask, or
 * checks and tightens an existing one. Throws FileSystemError `unsafe_config` (exit 8) for a
 * symlink, another user's directory, or one writable by group or others.
 */
export function openPrivateDir(dir: string): void {
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
export function assertSafeFile(path: string): boolean {
  const st = guard(() => lstatIfExists(path), path);
  if (!st) return false;
  if (st.isSymbolicLink()) throw unsafeConfig(`the config file ${path}`, "is a symbolic link");
  if (!st.isFile()) throw unsafeConfig(`the config file ${path}`, "is not a regular file");
  return true;
}

function unsafeConfig(what: string, problem: string): FileSystemError {
  return new FileSystemError(`refusing to use ${what}: it ${problem}`, {
    code: "unsafe_config",
  });
}

/**
 * Runs a config-file operation and turns its failures into svc-dl errors: FileSystemError
 * `config_unreadable` (exit 8), UsageError `config_invalid` for text that is not JSON.
 */
export function guard<T>(fn: () => T, where: string): T {
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
        detail: { permission: code === "EACCES" || code === "EPERM" },
        cause: err,
      },
    );
  }
}
