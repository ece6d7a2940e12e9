import type { ConfigGetDocument } from "../../documents/commands.js";
import type { Session } from "../../session.js";
import { settableKey, shownSetting } from "./settable.js";

/**
 * `svc-dl config get KEY`: prints the value stored in the config file (not the effective one:
 * `--base-url` and SVC_BASE_URL win over it). Prints nothing and exits 0 when unset (a note on
 * stderr). `--json`: `{"key","value"}` with `value` null when unset. Throws UsageError (exit 2)
 * for a key that is not settable. A proxy's password is shown as `***`.
 */
export async function runConfigGet(session: Session, rawKey: string): Promise<void> {
  const key = settableKey(rawKey);
  const stored = (await session.config()).get(key);
  const value = stored === undefined ? undefined : shownSetting(key, stored);
  if (session.globals.json) {
    session.printJson({ key, value: value ?? null } satisfies ConfigGetDocument);
    return;
  }
  if (value === undefined) {
    session.reporter.info(`${key} is not set in the config file.`);
    return;
  }
  session.print(value);
}
