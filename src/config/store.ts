import { chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import type Conf from "conf";
import {
  assertSafeFile,
  CONFIG_FILE_MODE,
  type ConfigSchema,
  configDirFrom,
  guard,
  openPrivateDir,
  readConfig,
} from "./config-file.js";
import {
  type KeyLocation,
  keyFieldsWithout,
  keyLocation,
  keyOrigins,
  ownString,
} from "./key-records.js";
import type { SettableKey } from "./settable-keys.js";

export { type ConfigSchema, checkConfigSafety, configDirFrom } from "./config-file.js";

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

  /** The API key stored in the file for a service origin, or undefined. */
  getKey(origin: string): string | undefined {
    return ownString(this.#data.keys, origin);
  }

  /** Where the key of a service origin is stored: the OS keyring, this file, or nowhere. */
  keyLocation(origin: string): KeyLocation | undefined {
    return keyLocation(this.#data, origin);
  }

  /** The service's `preview` of the key stored for a service origin, when login recorded one. */
  getPreview(origin: string): string | undefined {
    return ownString(this.#data.previews, origin);
  }

  /**
   * Records the key of a service origin, replacing any previous record of it: the key itself in
   * this file (`where` "config"), or only the mark that the OS keyring holds it ("keyring"),
   * with the service's `preview` when known (shown by `config list` and `auth status`).
   */
  async setKey(origin: string, key: string, preview?: string, where: KeyLocation = "config") {
    const next = keyFieldsWithout(this.#data, origin);
    if (where === "config") next.keys[origin] = key;
    else next["key-storage"][origin] = "keyring";
    if (preview !== undefined) next.previews[origin] = preview;
    await this.#write((conf) => conf.set(next));
  }

  /** Deletes the record (key or keyring mark, and preview) of an origin; returns whether there was one. */
  async deleteKey(origin: string): Promise<boolean> {
    if (this.keyLocation(origin) === undefined) return false;
    await this.#write((conf) => conf.set(keyFieldsWithout(this.#data, origin)));
    return true;
  }

  /** Origins that have a stored key, in this file or in the keyring (never the keys themselves). */
  keyOrigins(): string[] {
    return keyOrigins(this.#data);
  }

  /**
   * One change through conf (loaded and opened on the first write): the directory and file
   * checked right before (a link may have appeared), the modes tightened after, and what the
   * file now holds read back.
   */
  async #write(change: (conf: Conf<ConfigSchema>) => void): Promise<void> {
    await withoutSignalHooks(async () => {
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
    });
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

/**
 * Runs `use` (conf's load and a write through it) and then removes every signal listener
 * (`SIG…` events of `process`) that was added meanwhile, even when `use` throws. conf writes
 * through `atomically`, which loads `when-exit`: on load it adds a listener to SIGINT, SIGTERM,
 * SIGHUP and a dozen other signals that re-raises the signal at once, and so would kill a run
 * before it keeps partial data, releases its lock and prints "interrupted" (cli-contract "Exit
 * codes": 130/143). Only signal listeners are removed: when-exit's `exit` listener, which
 * deletes atomically's temporary files, stays. conf's only side effect on the process is
 * contained here.
 */
export async function withoutSignalHooks<T>(use: () => Promise<T>): Promise<T> {
  const before = new Map(signalEvents().map((sig) => [sig, new Set(process.listeners(sig))]));
  try {
    return await use();
  } finally {
    for (const sig of signalEvents()) {
      const kept = before.get(sig);
      for (const listener of process.listeners(sig)) {
        if (!kept?.has(listener)) process.removeListener(sig, listener);
      }
    }
  }
}

/** The signals that have a listener on `process` now. */
function signalEvents(): NodeJS.Signals[] {
  return process
    .eventNames()
    .filter((name): name is NodeJS.Signals => typeof name === "string" && name.startsWith("SIG"));
}
