import { removeApiKey } from "../../config/credentials.js";
import type { LogoutDocument } from "../../documents/commands.js";
import type { Session } from "../../session.js";
import { warnOverridingSources } from "./login.run.js";

/**
 * `svc-dl auth logout` (cli-contract): deletes the key stored for the current service origin
 * (flag > env > config base URL) from wherever `auth login` stored it: the OS keyring and the
 * config file. Exit 0 even when none was stored. Says so on stderr; with `--json`,
 * `{origin, removed, from}` on stdout (`from`: the places it was removed from). Does not touch
 * SVC_API_KEY or a key file (it warns when one is set). Throws `keyring_unavailable` (exit 3)
 * when the keyring holds the key but cannot be reached, after removing the file's record.
 */
export async function runLogout(session: Session): Promise<void> {
  const { url } = await session.baseUrl();
  const from = await removeApiKey(await session.config(), url.origin, session.ctx.keyring);
  const removed = from.length > 0;
  if (session.globals.json) {
    session.printJson({ origin: url.origin, removed, from } satisfies LogoutDocument);
  } else {
    const places = from.map((f) => (f === "keyring" ? "the OS keyring" : "the config file"));
    session.reporter.info(
      removed
        ? `Removed the stored API key for ${url.origin} from ${places.join(" and ")}.`
        : `No API key was stored for ${url.origin}; nothing to remove.`,
    );
  }
  warnOverridingSources(session);
}
