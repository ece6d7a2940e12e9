import { SvcError } from "../errors/svc-error.js";
import { type ResolvedApiKey, resolveApiKey } from "./api-key.js";
import { keyFromFiles } from "./key-file.js";
import type { KeyLocation } from "./key-records.js";
import { type Keyring, KeyringError } from "./keyring.js";
import type { ConfigStore } from "./store.js";

/** A key stored by `auth login`: its value (never to be printed) and where it is kept. */
export interface StoredKey {
  readonly value: string;
  readonly source: KeyLocation;
}

/**
 * The API key of a run, by the order of cli-contract "Credentials, schedules and offline runs":
 * `SVC_API_KEY`, the file `SVC_API_KEY_FILE` names, the systemd credential
 * `$CREDENTIALS_DIRECTORY/svc-api-key`, the key `auth login` stored (OS keyring or config file).
 * A source is read only when none above it gives a key, so the config file and the keyring are
 * not touched when the environment has the key. Throws what {@link resolveApiKey},
 * config/key-file.ts `keyFromFiles` and {@link storedApiKey} throw.
 */
export async function findApiKey(opts: {
  env: Readonly<Record<string, string | undefined>>;
  origin: string;
  config: () => Promise<ConfigStore>;
  keyring?: Keyring | undefined;
}): Promise<ResolvedApiKey> {
  const { env, origin } = opts;
  const fromEnv = env.SVC_API_KEY;
  const file = fromEnv?.trim() ? undefined : keyFromFiles(env);
  const stored =
    fromEnv?.trim() || file
      ? undefined
      : await storedApiKey(await opts.config(), origin, opts.keyring);
  return resolveApiKey({ env: fromEnv, file, stored, origin });
}

/**
 * The key `auth login` stored for `origin` (cli-contract "Credentials, schedules and offline
 * runs"): from the OS keyring when the config file marks it as kept there, else from the config
 * file; undefined when none was stored. The keyring is asked only for an origin whose key it
 * holds, so runs that use the file or the environment never load it.
 * Throws SvcError `keyring_unavailable` (exit 3) when the keyring holds the key but cannot be
 * used here (a cron job or service without a D-Bus session), and `no_api_key` (exit 3) when the
 * keyring no longer has it.
 */
export async function storedApiKey(
  config: ConfigStore,
  origin: string,
  keyring: Keyring | undefined,
): Promise<StoredKey | undefined> {
  const where = config.keyLocation(origin);
  if (where === "config") {
    const value = config.getKey(origin);
    return value === undefined ? undefined : { value, source: "config" };
  }
  if (where !== "keyring") return undefined;
  let value: string | undefined;
  try {
    if (!keyring) throw new KeyringError("no OS keyring in this process");
    value = await keyring.get(origin);
  } catch (err) {
    throw new SvcError(
      `the API key for ${origin} is stored in the OS keyring, which cannot be used here: ${(err as Error).message}`,
      { code: "keyring_unavailable", cause: err },
    );
  }
  if (value === undefined) {
    throw new SvcError(
      `the OS keyring no longer holds the API key for ${origin} (the config file says auth login stored it there)`,
      { code: "no_api_key" },
    );
  }
  return { value, source: "keyring" };
}

/** Where {@link saveApiKey} put the key, and why not in the keyring when it could not. */
export interface SavedKey {
  readonly location: KeyLocation;
  /** Set when the keyring was wanted but could not be used: the reason (never a key). */
  readonly keyringProblem?: string;
}

/**
 * Stores the key of `origin` as `auth login` does: in the OS keyring when one is usable and
 * `insecureStorage` is not asked for (the config file then records only that the keyring holds
 * it, and the service's preview), else in the `0600` config file. A key of the same origin kept
 * in the other place is removed, so exactly one copy remains. Throws what the config store
 * throws (exit 8).
 */
export async function saveApiKey(
  config: ConfigStore,
  opts: {
    origin: string;
    key: string;
    preview?: string | undefined;
    keyring: Keyring | undefined;
    insecureStorage: boolean;
    /** Told why the keyring cannot be used, before the key is written to the config file. */
    onKeyringProblem?: (problem: string) => void;
  },
): Promise<SavedKey> {
  const { origin, key, preview, keyring } = opts;
  let keyringProblem: string | undefined;
  if (!opts.insecureStorage) {
    try {
      if (!keyring) throw new KeyringError("no OS keyring in this process");
      await keyring.set(origin, key);
      await config.setKey(origin, "", preview, "keyring");
      return { location: "keyring" };
    } catch (err) {
      if (!(err instanceof KeyringError)) throw err;
      keyringProblem = err.message;
      opts.onKeyringProblem?.(keyringProblem);
    }
  }
  await config.setKey(origin, key, preview, "config");
  if (opts.insecureStorage && keyring) await keyring.delete(origin).catch(() => false);
  return keyringProblem === undefined
    ? { location: "config" }
    : { location: "config", keyringProblem };
}

/**
 * Removes the key of `origin` from wherever `auth login` stored it: the config file's record and
 * the OS keyring's entry (asked only when the file marks it as kept there, or when a keyring is
 * at hand and answers). Resolves the places it was removed from. A keyring that cannot be used
 * while the file marks a key there throws SvcError `keyring_unavailable` after the file's
 * record is removed, so the user knows a copy may remain.
 */
export async function removeApiKey(
  config: ConfigStore,
  origin: string,
  keyring: Keyring | undefined,
): Promise<KeyLocation[]> {
  const marked = config.keyLocation(origin);
  const removed: KeyLocation[] = [];
  if (await config.deleteKey(origin)) removed.push(marked === "keyring" ? "keyring" : "config");
  if (!keyring) return removed;
  try {
    if ((await keyring.delete(origin)) && !removed.includes("keyring")) removed.push("keyring");
  } catch (err) {
    if (marked !== "keyring") return removed;
    throw new SvcError(
      `the config file's record of the key for ${origin} was removed, but the OS keyring cannot be used here to delete the key itself: ${(err as Error).message}`,
      { code: "keyring_unavailable", cause: err },
    );
  }
  return removed;
}
