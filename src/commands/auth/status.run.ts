import { getMe } from "../../api/get-me.js";
import type { AuthStatusDocument } from "../../documents/commands.js";
import { keyPreview, keySourceLabel } from "../../io/key-preview.js";
import type { Session } from "../../session.js";

/**
 * `svc-dl auth status` (cli-contract "auth status"), like `gh auth status`: the service origin,
 * where the key comes from (`env`, `file`, `systemd-credential`, `keyring` or `config`), its preview, name, scopes,
 * created/last used, and the account e-mail, from one `GET /v1/me`. Human text on stdout;
 * `--json`: `{origin, source, account, key}`. Throws SvcError `no_api_key` (exit 3) with no
 * key, the API's error (exit 3 for a refused key) otherwise.
 */
export async function runAuthStatus(session: Session): Promise<void> {
  const { url } = await session.baseUrl();
  const resolved = await session.apiKey();
  const client = await session.http();
  const { me } = await getMe(client);
  if (session.globals.json) {
    session.printJson({
      origin: url.origin,
      source: resolved.source,
      account: me.account,
      // the preview as every output shows it, ending in `…` (never read as a whole key)
      key: { ...me.key, preview: keyPreview({ preview: me.key.preview }) },
    } satisfies AuthStatusDocument);
    return;
  }
  const k = me.key;
  session.print([
    url.origin,
    `  ✓ Logged in as ${me.account.name} <${me.account.email}>`,
    `  key:       ${k.name} (${keyPreview({ preview: k.preview })})`,
    `  source:    ${keySourceLabel(resolved)}`,
    `  scopes:    ${k.scopes.join(", ") || "(none)"}`,
    `  created:   ${k.created_at}`,
    `  last used: ${k.last_used_at ?? "never"}`,
  ]);
}
