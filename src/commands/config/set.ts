import { Command } from "commander";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";
import { settableKey, shownSetting } from "./settable.js";

/**
 * `svc-dl config set KEY VALUE`: stores a setting. `base-url` is checked like every base URL
 * (https, or http only for loopback hosts; no `/api` suffix) and stored normalised. Throws
 * UsageError (exit 2) for an unknown key or a refused value; the file is then left unchanged.
 * A proxy's password is stored but shown as `***`.
 */
export async function runConfigSet(session: Session, rawKey: string, value: string): Promise<void> {
  const key = settableKey(rawKey);
  const { parseBaseUrl, baseUrlString } = await import("../../config/base-url.js");
  const { normaliseNetworkSetting } = await import("../../http/dispatcher.js");
  const normalised =
    key === "base-url"
      ? baseUrlString(parseBaseUrl(value, "argument"))
      : key === "limit-rate"
        ? await checkedRate(value)
        : normaliseNetworkSetting(key, value, session.ctx.cwd);
  const config = await session.config();
  config.set(key, normalised);
  const shown = await shownSetting(key, normalised);
  if (session.globals.json) {
    session.printJson({ key, value: shown });
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
async function checkedRate(value: string): Promise<string> {
  const { rateBytesPerSecond } = await import("../../pacing/units.js");
  if (rateBytesPerSecond(value) === undefined) {
    const { UsageError } = await import("../../errors/usage-error.js");
    throw new UsageError(`limit-rate: ${JSON.stringify(value)} is not a download rate`, {
      code: "invalid_limit_rate",
    });
  }
  return value.trim();
}

/** Builds `config set`. */
export function configSetCommand(open: OpenSession): Command {
  return new Command("set")
    .description("store a setting in the config file")
    .argument("<key>", "setting name: base-url, proxy, ca-file or limit-rate")
    .argument("<value>", "the new value")
    .addHelpText(
      "after",
      examples(
        "svc-dl config set base-url https://assets.example.com",
        "svc-dl config set base-url http://127.0.0.1:8787",
        "svc-dl config set proxy http://proxy.example:3128",
        "svc-dl config set ca-file /etc/ssl/corp-ca.pem",
      ),
    )
    .action(async (key: string, value: string, _opts: unknown, cmd: Command) => {
      await runConfigSet(open(cmd), key, value);
    });
}
