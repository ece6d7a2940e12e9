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
