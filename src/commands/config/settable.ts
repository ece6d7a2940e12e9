import { SETTABLE_KEYS, type SettableKey } from "../../config/settable-keys.js";
import { UsageError } from "../../errors/usage-error.js";
import { maskUrlCredentials } from "../../http/redact.js";

/**
 * A setting's value as svc-dl shows it (human and `--json`): a proxy's password is `***`
 * (the config file keeps it; svc-dl never prints it).
 */
export function shownSetting(key: SettableKey, value: string): string {
  if (key !== "proxy") return value;
  return maskUrlCredentials(value);
}

/** The settable key named on the command line. Throws UsageError (exit 2) listing the settable keys. */
export function settableKey(key: string): SettableKey {
  const found = SETTABLE_KEYS.find((k) => k === key);
  if (found === undefined) {
    throw new UsageError(`unknown config key ${JSON.stringify(key)}`, {
      code: "unknown_config_key",
      detail: { settable: SETTABLE_KEYS.join(", ") },
    });
  }
  return found;
}
