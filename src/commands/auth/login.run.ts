import { getMe } from "../../api/get-me.js";
import { assertSendableKey } from "../../config/api-key.js";
import { UsageError } from "../../errors/usage-error.js";
import { keyPreview } from "../../io/key-preview.js";
import { promptSecret, readSecretFromStream } from "../../io/secret.js";
import type { Session } from "../../session.js";

/** Options of `auth login`. */
export interface LoginOptions {
  /** Read the key from stdin (for scripts) instead of a hidden prompt. */
  withKey?: boolean;
}

/**
 * Gets the key to log in with: stdin with `--with-key`, else a hidden prompt when stdin is a
 * terminal. Trimmed. Throws UsageError (exit 2) when neither is possible, when the value is
 * empty, for a license key (`SVC_…`, code `license_key_as_api_key`), and for a value that cannot
 * be sent in a header (`malformed_api_key`).
 */
export async function readKeyToLogin(session: Session, opts: LoginOptions): Promise<string> {
  let raw: string;
  if (opts.withKey) {
    raw = await readSecretFromStream(session.ctx.io.stdin, "API key");
  } else if (session.ctx.io.stdinIsTTY) {
    raw = await promptSecret("Paste your API key (svc_live_…, input hidden): ", session.ctx.io);
  } else {
    throw new UsageError("no terminal to prompt for the API key (stdin is not a TTY)", {
      code: "no_tty",
    });
  }
  const key = raw.trim();
  if (key === "") {
    throw new UsageError("no API key given (the input was empty)", { code: "empty_key" });
  }
  if (key.startsWith("SVC_")) {
    throw new UsageError("that is a license key (SVC_…), not an API key; nothing was sent", {
      code: "license_key_as_api_key",
    });
  }
  assertSendableKey(key, "the key given");
  return key;
}

/**
 * `svc-dl auth login [--with-key]` (cli-contract): reads a key, refuses license keys locally,
 * checks the key with `GET /v1/me` (that key, not the stored or SVC_API_KEY one) and only then
 * stores it for the current service origin (config file 0600, directory 0700). Prints who is
 * logged in and the key's `preview` on stderr; with `--json`, `{origin, account, key}` on
 * stdout. On failure nothing is stored and the API's error (exit 3/4/6/7) is thrown.
 */
export async function runLogin(session: Session, opts: LoginOptions): Promise<void> {
  const { url } = await session.baseUrl();
  const key = await readKeyToLogin(session, opts);
  const client = await session.http({ apiKey: key });
  const { me } = await getMe(client);
  const config = await session.config();
  await config.setKey(url.origin, key, me.key.preview);
  if (session.globals.json) {
    session.printJson({ origin: url.origin, account: me.account, key: me.key });
  } else {
    session.reporter.info(
      `Logged in to ${url.origin} as ${me.account.name} <${me.account.email}> (${me.account.id}).`,
    );
    session.reporter.info(
      `Key ${me.key.name} (${keyPreview({ preview: me.key.preview })}) stored in ${config.path}.`,
    );
  }
  if (session.ctx.env.SVC_API_KEY?.trim()) {
    session.reporter.warn(
      "env_overrides_config",
      "SVC_API_KEY is set and takes precedence over the stored key; unset it to use the stored one.",
    );
  }
}
