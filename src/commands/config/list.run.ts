import { SETTABLE_KEYS } from "../../config/settable-keys.js";
import type { ConfigListDocument } from "../../documents/commands.js";
import { storedKeyPreview } from "../../io/key-preview.js";
import type { Session } from "../../session.js";
import { shownSetting } from "./settable.js";

/**
 * `svc-dl config list`: the settings of the config file and the service origins that have a
 * stored API key, each with a short preview (never the key). Human: `key=value` lines, then
 * one `key for <origin>: <preview>` line each. `--json`:
 * `{"path","settings":{"base-url":string|null},"keys":[{"origin","preview"}]}`. A proxy's
 * password is shown as `***`.
 */
export async function runConfigList(session: Session): Promise<void> {
  const config = await session.config();
  const settings: Record<string, string | null> = {};
  for (const key of SETTABLE_KEYS) {
    const value = config.get(key);
    settings[key] = value === undefined ? null : shownSetting(key, value);
  }
  const keys = config.keyOrigins().map((origin) => ({
    origin,
    preview: storedKeyPreview(config.getKey(origin) ?? "", config.getPreview(origin)),
  }));
  if (session.globals.json) {
    session.printJson({ path: config.path, settings, keys } satisfies ConfigListDocument);
    return;
  }
  const lines = Object.entries(settings).map(([k, v]) => (v === null ? `${k}=` : `${k}=${v}`));
  for (const k of keys) lines.push(`key for ${k.origin}: ${k.preview}`);
  if (keys.length === 0) lines.push("no API keys stored (use `svc-dl auth login`)");
  session.print(lines);
}
