import { getMe } from "../../api/get-me.js";
import { assertSendableKey } from "../../config/api-key.js";
import { saveApiKey } from "../../config/credentials.js";
import type { LoginDocument } from "../../documents/commands.js";
import { UsageError } from "../../errors/usage-error.js";
import { keyPreview } from "../../io/key-preview.js";
import { promptSecret, readSecretFromStream } from "../../io/secret.js";
import type { Session } from "../../session.js";

/** Options of `auth login`. */
export interface LoginOptions {
  /** Read the key from stdin (for scripts) instead of a hidden prompt. */
  withKey?: boolean;
  /** Store the key in the config file even when an OS keyring is usable. */
  insecureStorage?: boolean;
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
 * `svc-dl auth login [--with-key] [--insecure-storage]` (cli-contract "auth login" and
 * "Credentials, schedules and offline runs"): reads a key, refuses license keys locally, checks
 * the key with `GET /v1/me` (that key, not the stored or SVC_API_KEY one) and only then stores
 * it for the current service origin: in the OS keyring when one is usable (the config file
 * records only that, and the preview), else, after saying why on stderr, in the config file
 * (0600, directory 0700); `--insecure-storage` chooses the file on purpose. Prints who is
 * logged in, the key's `preview` and where it is kept on stderr; with `--json`,
 * `{origin, account, key, storage}` on stdout. On failure nothing is stored and the API's error
 * (exit 3/4/6/7) is thrown.
 */
export async function runLogin(session: Session, opts: LoginOptions): Promise<void> {
  const { url } = await session.baseUrl();
  const key = await readKeyToLogin(session, opts);
  const client = await session.http({ apiKey: key });
  const { me } = await getMe(client);
  const config = await session.config();
  const saved = await saveApiKey(config, {
    origin: url.origin,
    key,
    preview: me.key.preview,
    keyring: session.ctx.keyring,
    insecureStorage: opts.insecureStorage === true,
    onKeyringProblem: (problem) =>
      session.reporter.warn(
        "keyring_unavailable",
        `the OS keyring cannot be used (${problem}); storing the key in the config file ${config.path} (mode 0600) instead (--insecure-storage chooses this without the warning).`,
      ),
  });
  if (session.globals.json) {
    session.printJson({
      origin: url.origin,
      account: me.account,
      key: me.key,
      storage: saved.location,
    } satisfies LoginDocument);
  } else {
    session.reporter.info(
      `Logged in to ${url.origin} as ${me.account.name} <${me.account.email}> (${me.account.id}).`,
    );
    const where = saved.location === "keyring" ? "the OS keyring" : config.path;
    session.reporter.info(
      `Key ${me.key.name} (${keyPreview({ preview: me.key.preview })}) stored in ${where}.`,
    );
  }
  warnOverridingSources(session);
}

/** Warns when a key source above the stored key (environment, key file) will keep being used. */
export function warnOverridingSources(session: Session): void {
  const env = session.ctx.env;
  const over = env.SVC_API_KEY?.trim()
    ? "SVC_API_KEY"
    : env.SVC_API_KEY_FILE
      ? "SVC_API_KEY_FILE"
      : env.CREDENTIALS_DIRECTORY
        ? "CREDENTIALS_DIRECTORY"
        : undefined;
  if (over) {
    session.reporter.warn(
      "env_overrides_config",
      `${over} is set and takes precedence over the stored key; unset it to use the stored one.`,
    );
  }
}
