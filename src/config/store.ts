import { chmodSync } from "node:fs";
import { dirname } from "node:path";
import Conf from "conf";

/** What the config file holds. Keys are stored per service origin (cli-contract "Configuration"). */
export interface ConfigSchema {
  /** The service address (`{base_url}` of the spec, without `/api`). */
  "base-url"?: string;
  /** API keys by service origin (`https://host:port`). */
  keys?: Record<string, string>;
}

/** Settable keys of `svc-dl config set`. */
export const SETTABLE_KEYS = ["base-url"] as const;
export type SettableKey = (typeof SETTABLE_KEYS)[number];

/**
 * The config file, through `conf`: in `SVC_DL_CONFIG_DIR` when set, else the OS config
 * directory (Linux: `$XDG_CONFIG_HOME/svc-dl`). The file is written with mode 0600 and its
 * directory tightened to 0700 (conf creates it 0755).
 */
export class ConfigStore {
  readonly #conf: Conf<ConfigSchema>;

  constructor(env: Readonly<Record<string, string | undefined>>) {
    const dir = env.SVC_DL_CONFIG_DIR;
    this.#conf = new Conf<ConfigSchema>({
      projectName: "svc-dl",
      projectSuffix: "",
      configName: "config",
      configFileMode: 0o600,
      ...(dir ? { cwd: dir } : {}),
    });
  }

  /** Absolute path of the config file (it may not exist yet). */
  get path(): string {
    return this.#conf.path;
  }

  /** A settable value, or undefined. */
  get(key: SettableKey): string | undefined {
    return this.#conf.get(key);
  }

  /** Sets a settable value and tightens the file and directory modes. */
  set(key: SettableKey, value: string): void {
    this.#conf.set(key, value);
    this.#tighten();
  }

  /** Removes a settable value. */
  unset(key: SettableKey): void {
    this.#conf.delete(key);
    this.#tighten();
  }

  /** The stored API key for a service origin, or undefined. */
  getKey(origin: string): string | undefined {
    return this.#conf.get("keys")?.[origin];
  }

  /** Stores the API key for a service origin (replacing any previous one). */
  setKey(origin: string, key: string): void {
    const keys = { ...(this.#conf.get("keys") ?? {}), [origin]: key };
    this.#conf.set("keys", keys);
    this.#tighten();
  }

  /** Deletes the stored key of a service origin; returns whether one was stored. */
  deleteKey(origin: string): boolean {
    const keys = { ...(this.#conf.get("keys") ?? {}) };
    if (!(origin in keys)) return false;
    delete keys[origin];
    this.#conf.set("keys", keys);
    this.#tighten();
    return true;
  }

  /** Origins that have a stored key (never the keys themselves). */
  keyOrigins(): string[] {
    return Object.keys(this.#conf.get("keys") ?? {});
  }

  #tighten(): void {
    chmodSync(dirname(this.#conf.path), 0o700);
    chmodSync(this.#conf.path, 0o600);
  }
}
