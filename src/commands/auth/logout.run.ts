import type { Session } from "../../session.js";

/**
 * `svc-dl auth logout` (cli-contract): deletes the key stored for the current service origin
 * (flag > env > config base URL). Exit 0 even when none was stored. Says so on stderr; with
 * `--json`, `{origin, removed}` on stdout. Does not touch SVC_API_KEY (it warns when set).
 */
export async function runLogout(session: Session): Promise<void> {
  const { url } = await session.baseUrl();
  const removed = await (await session.config()).deleteKey(url.origin);
  if (session.globals.json) {
    session.printJson({ origin: url.origin, removed });
  } else {
    session.reporter.info(
      removed
        ? `Removed the stored API key for ${url.origin}.`
        : `No API key was stored for ${url.origin}; nothing to remove.`,
    );
  }
  if (session.ctx.env.SVC_API_KEY?.trim()) {
    session.reporter.warn(
      "env_overrides_config",
      "SVC_API_KEY is still set in the environment and will keep being used.",
    );
  }
}
