import { createRequire } from "node:module";

/**
 * The OS keyring as svc-dl uses it (cli-contract "Credentials, schedules and offline runs"):
 * one secret per service origin, under the service name `svc-dl` (Secret Service on Linux,
 * Keychain on macOS, Credential Manager on Windows). Every method throws {@link KeyringError}
 * when the keyring cannot be used (no D-Bus session, a locked or absent Secret Service, no
 * native module for this platform); callers decide whether that is a fallback or a failure.
 */
export interface Keyring {
  /** The key stored for `origin`, or undefined when there is none. */
  get(origin: string): Promise<string | undefined>;
  /** Stores `key` for `origin`, replacing any earlier one. */
  set(origin: string, key: string): Promise<void>;
  /** Removes the key of `origin`; resolves whether there was one. */
  delete(origin: string): Promise<boolean>;
}

/** The keyring could not be used; `message` says why (never a key). */
export class KeyringError extends Error {
  override name = "KeyringError" as const;
}

/** The service name of svc-dl's entries in the OS keyring. */
export const KEYRING_SERVICE = "svc-dl";

/** A keyring call that has not answered by then is abandoned (a locked keyring may wait for a prompt no one sees). */
const KEYRING_TIMEOUT_MS = 10_000;

type Entry = import("@napi-rs/keyring").AsyncEntry;

/**
 * The OS keyring through `@napi-rs/keyring`, loaded on first use only (start-up never pays for
 * the native module). On Linux the Secret Service is required: the kernel keyring it would
 * otherwise fall back to does not outlive a reboot, so a key stored there would vanish. On
 * Linux without `DBUS_SESSION_BUS_ADDRESS` (cron, system services, CI) it is not even loaded.
 */
export function osKeyring(
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
): Keyring {
  const entry = async (origin: string): Promise<Entry> => {
    if (platform === "linux" && !env.DBUS_SESSION_BUS_ADDRESS) {
      throw new KeyringError("no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set");
    }
    let mod: typeof import("@napi-rs/keyring");
    try {
      // required, not imported: a CommonJS native module, loaded the same way from any build
      mod = createRequire(import.meta.url)("@napi-rs/keyring") as typeof import("@napi-rs/keyring");
    } catch (err) {
      throw new KeyringError(`no keyring support for this platform (${reason(err)})`);
    }
    try {
      return new mod.AsyncEntry(KEYRING_SERVICE, origin, { linux: { store: "secret-service" } });
    } catch (err) {
      throw new KeyringError(reason(err));
    }
  };
  const call = async <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await fn(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
    } catch (err) {
      throw err instanceof KeyringError ? err : new KeyringError(reason(err));
    }
  };
  return {
    get: (origin) =>
      call(async (signal) => (await (await entry(origin)).getPassword(signal)) ?? undefined),
    set: (origin, key) => call(async (signal) => (await entry(origin)).setPassword(key, signal)),
    delete: (origin) => call(async (signal) => (await entry(origin)).deletePassword(signal)),
  };
}

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, " ").trim().slice(0, 200) || "unknown error";
}
