import { SETTABLE_KEYS } from "../../config/settable-keys.js";
import { UsageError } from "../../errors/usage-error.js";
import { maskUrlPassword } from "../../http/redact.js";

/** Settable keys of `svc-dl config`. */
export const SETTABLE = SETTABLE_KEYS;

/**
 * A setting's value as svc-dl shows it (human and `--json`): a proxy's password is `***`
 * (the config file keeps it; svc-dl never prints it).
 */
export function shownSetting(key: (typeof SETTABLE)[number], value: string): string {
  if (key !== "proxy") return value;
  return maskUrlPassword(value);
}

/** The settable key named on the command line. Throws UsageError (exit 2) listing the settable keys. */
export function settableKey(key: string): (typeof SETTABLE)[number] {
  const found = SETTABLE.find((k) => k === key);
  if (found === undefined) {
    throw new UsageError(`unknown config key ${JSON.stringify(key)}`, {
      code: "unknown_config_key",
      hint: `Settable keys: ${SETTABLE.join(", ")}. API keys are stored with \`svc-dl auth login\`.`,
    });
  }
  return found;
}
