import { getMe } from "../../api/get-me.js";
import type { WhoamiDocument } from "../../documents/commands.js";
import { keyPreview, keySourceLabel } from "../../io/key-preview.js";
import type { Session } from "../../session.js";

/**
 * `svc-dl whoami` (cli-contract): `GET /v1/me`. Human: name, e-mail, account id, lifetime
 * flag, pack and asset counts, key name, preview, scopes, created/last used. `--json`: the
 * response's `data` object unchanged. With `--verbose`, says where the key came from.
 */
export async function runWhoami(session: Session): Promise<void> {
  const key = await session.apiKey();
  const client = await session.http();
  session.reporter.verbose(
    `using the API key from ${key.source === "config" ? `the config file (${(await session.config()).path})` : keySourceLabel(key)}`,
  );
  const { me } = await getMe(client);
  if (session.globals.json) {
    session.printJson(me satisfies WhoamiDocument);
    return;
  }
  const { account, entitlements, key: k } = me;
  session.print([
    `Logged in to ${client.baseUrl.origin} as ${account.name} <${account.email}> (${account.id})`,
    `  lifetime access: ${entitlements.lifetime ? "yes" : "no"}`,
    `  packs owned:     ${entitlements.pack_count}`,
    `  assets covered:  ${entitlements.asset_count}`,
    `  key:             ${k.name} (${keyPreview({ preview: k.preview })}, ${k.id})`,
    `  scopes:          ${k.scopes.join(", ") || "(none)"}`,
    `  created:         ${k.created_at}`,
    `  last used:       ${k.last_used_at ?? "never"}`,
  ]);
}
