import { legacyDenial, legacySource, scrubError } from "../../api/legacy-download.js";
import { UsageError } from "../../errors/usage-error.js";
import { refuseBinaryToTerminal } from "../../io/binary-guard.js";
import { promptSecret, readSecretFromStream } from "../../io/secret.js";
import { validateSlug } from "../../outdir/names.js";
import type { Session } from "../../session.js";
import { runGet } from "../shared/get-one.js";

/** Options of `legacy get`. */
export interface LegacyGetOptions {
  pack?: string;
  asset?: string;
  edition?: "standard" | "authoring";
  /** `-o PATH`. */
  output?: string;
  force?: boolean;
  licenseKeyStdin?: boolean;
}

/**
 * The license key (cli-contract "Configuration and credentials"): stdin with
 * `--license-key-stdin`, else `SVC_LICENSE_KEY`, else a hidden prompt on a TTY (echo off,
 * prompt on stderr). Never from argv, never stored. Trimmed. Throws UsageError (exit 2) when
 * none is available or the value is an API key; CancelledError when the prompt is cancelled.
 */
export async function readLicenseKey(session: Session, fromStdin: boolean): Promise<string> {
  const { io, env } = session.ctx;
  let key: string;
  if (fromStdin) {
    key = await readSecretFromStream(io.stdin, "license key");
  } else if (env.SVC_LICENSE_KEY?.trim()) {
    key = env.SVC_LICENSE_KEY.trim();
  } else if (io.stdinIsTTY && io.stderrIsTTY) {
    key = await promptSecret("License key (SVC_…, from the purchase; input hidden): ", io);
  } else {
    throw new UsageError("no license key: legacy get needs the purchase's license key (SVC_…)", {
      code: "no_license_key",
    });
  }
  if (key === "") {
    throw new UsageError("the license key is empty", { code: "no_license_key" });
  }
  if (key.startsWith("svc_live_")) {
    throw new UsageError("that is an API key (svc_live_…), not a license key (SVC_…)", {
      code: "wrong_key_kind",
    });
  }
  return key;
}

/**
 * `svc-dl legacy get (--pack SLUG | --asset SLUG) [--edition authoring] [-o PATH]
 * [--license-key-stdin]` (cli-contract): `POST {base_url}/api/download` with the spec's JSON
 * body; no API key is sent. The body (with the license key) is never re-sent to a redirect
 * target (HttpClient.send turns redirects into GETs). Denials show the HTTP status, any JSON
 * error code or a sanitized excerpt, and the request id; the license key never appears in any
 * output. Throws UsageError (exit 2) for bad flags or slugs, and `binary_to_terminal` for `-o -`
 * with stdout a terminal (before the key is read).
 */
export async function runLegacyGet(session: Session, opts: LegacyGetOptions): Promise<void> {
  if ((opts.pack === undefined) === (opts.asset === undefined)) {
    throw new UsageError("give exactly one of --pack SLUG or --asset SLUG");
  }
  if (opts.edition !== undefined && opts.pack === undefined) {
    throw new UsageError("--edition applies only to --pack");
  }
  const slug = validateSlug(
    opts.pack ?? opts.asset ?? "",
    opts.pack !== undefined ? "pack slug" : "asset slug",
  );
  const kind = opts.pack !== undefined ? "pack" : "asset";
  const edition = kind === "pack" ? (opts.edition ?? "standard") : null;
  if (opts.output === "-") {
    // refused before the key is asked for, not only before the request (runGet checks too)
    refuseBinaryToTerminal(session.ctx.io);
  }
  const licenseKey = await readLicenseKey(session, opts.licenseKeyStdin === true);
  try {
    const services = await session.services({ needsKey: false });
    const client = services.http;
    await runGet(session, services, {
      item: { kind, slug, edition },
      source: legacySource(client, { licenseKey, kind, slug, edition }),
      output: opts.output,
      force: opts.force === true,
      errorFromResponse: (res) => legacyDenial(res, licenseKey),
    });
  } catch (err) {
    throw scrubError(err, licenseKey);
  }
}
