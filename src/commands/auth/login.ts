import type { Readable } from "node:stream";
import { Command } from "commander";
import { InterruptedError } from "../../errors/interrupted-error.js";
import { UsageError } from "../../errors/usage-error.js";
import type { Session } from "../../session.js";
import { examples, type OpenSession } from "../command-kit.js";

/** Options of `auth login`. */
export interface LoginOptions {
  /** Read the key from stdin (for scripts) instead of a hidden prompt. */
  withKey?: boolean;
}

/** Most bytes read from stdin for a key; an API key is about 50 characters. */
const STDIN_LIMIT = 64 * 1024;

/** Reads a stream to its end as UTF-8 text (at most 64 KiB). */
async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > STDIN_LIMIT) {
      throw new UsageError("stdin holds more than 64 KiB; expected one API key", {
        code: "invalid_key_input",
      });
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Asks for the key on the terminal without echoing it (prompt on stderr). */
async function promptForKey(session: Session): Promise<string> {
  const { read } = await import("read");
  try {
    return await read({
      prompt: "Paste your API key (svc_live_…, input hidden): ",
      silent: true,
      replace: "",
      input: session.ctx.io.stdin,
      output: session.ctx.io.stderr,
      terminal: true,
    });
  } catch (err) {
    if (err instanceof Error && /cancel/i.test(err.message)) throw new InterruptedError("SIGINT");
    throw err;
  }
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
    raw = await readAll(session.ctx.io.stdin);
  } else if (session.ctx.io.stdinIsTTY) {
    raw = await promptForKey(session);
  } else {
    throw new UsageError("no terminal to prompt for the API key (stdin is not a TTY)", {
      code: "no_tty",
      hint: "Pipe the key on stdin with --with-key, e.g. `svc-dl auth login --with-key < key.txt`, or set SVC_API_KEY.",
    });
  }
  const key = raw.trim();
  if (key === "") {
    throw new UsageError("no API key given (the input was empty)", {
      code: "empty_key",
      hint: "Create a key under Account › Connections › API keys and paste it, or pipe it with --with-key.",
    });
  }
  if (key.startsWith("SVC_")) {
    throw new UsageError("that is a license key (SVC_…), not an API key; nothing was sent", {
      code: "license_key_as_api_key",
      hint: "License keys work only with `svc-dl legacy get` (SVC_LICENSE_KEY or --license-key-stdin). API keys start with svc_live_ and are created under Account › Connections › API keys.",
    });
  }
  const { assertSendableKey } = await import("../../config/api-key.js");
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
  const { getMe } = await import("../../api/get-me.js");
  const client = await session.http({ apiKey: key });
  const { me } = await getMe(client);
  const config = await session.config();
  config.setKey(url.origin, key);
  if (session.globals.json) {
    session.printJson({ origin: url.origin, account: me.account, key: me.key });
  } else {
    session.reporter.info(
      `Logged in to ${url.origin} as ${me.account.name} <${me.account.email}> (${me.account.id}).\nKey ${me.key.name} (${withEllipsis(me.key.preview)}) stored in ${config.path}.`,
    );
  }
  if (session.ctx.env.SVC_API_KEY?.trim()) {
    session.reporter.warn(
      "warning: SVC_API_KEY is set and takes precedence over the stored key; unset it to use the stored one.",
    );
  }
}

/** The spec's key `preview` with a trailing `…`, so it never reads as a whole key. */
function withEllipsis(preview: string): string {
  return preview.endsWith("…") ? preview : `${preview}…`;
}

/** Builds the `auth login` command. */
export function loginCommand(open: OpenSession): Command {
  return new Command("login")
    .description(
      "check an API key with the service and store it for this service address\n(hidden prompt, or stdin with --with-key)",
    )
    .option("--with-key", "read the API key from stdin (for scripts)")
    .addHelpText(
      "after",
      examples(
        "svc-dl auth login",
        "svc-dl auth login --with-key < ~/.secrets/svc-key",
        "printf '%s' \"$KEY\" | svc-dl --base-url https://assets.example.com auth login --with-key",
      ),
    )
    .action(async (opts: LoginOptions, cmd: Command) => {
      await runLogin(open(cmd), opts);
    });
}
