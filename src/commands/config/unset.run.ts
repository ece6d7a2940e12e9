import type { ConfigUnsetDocument } from "../../documents/commands.js";
import type { Session } from "../../session.js";
import { settableKey } from "./settable.js";

/**
 * `svc-dl config unset KEY`: removes a setting from the config file. Exit 0 even when it was
 * not set. `--json`: `{"key","removed"}`. Throws UsageError (exit 2) for an unknown key.
 */
export async function runConfigUnset(session: Session, rawKey: string): Promise<void> {
  const key = settableKey(rawKey);
  const removed = await (await session.config()).unset(key);
  if (session.globals.json) {
    session.printJson({ key, removed } satisfies ConfigUnsetDocument);
    return;
  }
  session.reporter.info(removed ? `${key} removed.` : `${key} was not set.`);
}
