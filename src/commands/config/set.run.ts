import { baseUrlString, parseBaseUrl } from "../../config/base-url.js";
import type { ConfigSetDocument } from "../../documents/commands.js";
import { UsageError } from "../../errors/usage-error.js";
import { normaliseNetworkSetting } from "../../http/dispatcher.js";
import { rateBytesPerSecond } from "../../pacing/units.js";
import type { Session } from "../../session.js";
import { settableKey, shownSetting } from "./settable.js";

/**
 * `svc-dl config set KEY VALUE`: stores a setting. `base-url` is checked like every base URL
 * (https, or http only for loopback hosts; no `/api` suffix) and stored normalised. Throws
 * UsageError (exit 2) for an unknown key or a refused value; the file is then left unchanged.
 * A proxy's password is stored but shown as `***`.
 */
export async function runConfigSet(session: Session, rawKey: string, value: string): Promise<void> {
  const key = settableKey(rawKey);
  const normalised =
    key === "base-url"
      ? baseUrlString(parseBaseUrl(value, "argument"))
      : key === "limit-rate"
        ? checkedRate(value)
        : normaliseNetworkSetting(key, value, session.ctx.cwd);
  const config = await session.config();
  await config.set(key, normalised);
  const shown = shownSetting(key, normalised);
  if (session.globals.json) {
    session.printJson({ key, value: shown } satisfies ConfigSetDocument);
    return;
  }
  session.reporter.info(`${key} set to ${shown} in ${config.path}`);
  if (key === "base-url" && (session.globals.baseUrl || session.ctx.env.SVC_BASE_URL)) {
    session.reporter.warn(
      "env_overrides_config",
      "--base-url or SVC_BASE_URL is set and takes precedence over the config file.",
    );
  }
}

/** A `limit-rate` value as stored (trimmed). Throws UsageError (exit 2) for a value that is not a rate. */
function checkedRate(value: string): string {
  if (rateBytesPerSecond(value) === undefined) {
    throw new UsageError(`limit-rate: ${JSON.stringify(value)} is not a download rate`, {
      code: "invalid_limit_rate",
    });
  }
  return value.trim();
}
