import { ApiError } from "../errors/api-error.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";

/**
 * Where the API key came from (cli-contract "Credentials, schedules and offline runs", in
 * order): `SVC_API_KEY` (`env`), the file `SVC_API_KEY_FILE` names (`file`), the systemd
 * credential `$CREDENTIALS_DIRECTORY/svc-api-key` (`systemd-credential`), or the key `auth
 * login` stored, in the OS keyring (`keyring`) or the config file (`config`).
 */
export type ApiKeySource = "env" | "file" | "systemd-credential" | "keyring" | "config";

/** A resolved API key. The value must never be printed; use `keyPreview` of io/key-preview.ts. */
export interface ResolvedApiKey {
  readonly value: string;
  readonly source: ApiKeySource;
  /** The key file's path, for the `file` and `systemd-credential` sources. */
  readonly path?: string;
}

/** True for a value that looks like a license key (`SVC_…`), which is not an API key. */
export function isLicenseKey(value: string): boolean {
  return value.startsWith("SVC_");
}

/** How a source is named in messages: `SVC_API_KEY`, `SVC_API_KEY_FILE (path)`, `the stored key`. */
export function keySourceName(key: { source: ApiKeySource; path?: string | undefined }): string {
  switch (key.source) {
    case "env":
      return "SVC_API_KEY";
    case "file":
      return `SVC_API_KEY_FILE (${key.path})`;
    case "systemd-credential":
      return `the systemd credential ${key.path}`;
    case "keyring":
      return "the key stored in the OS keyring";
    default:
      return "the stored key";
  }
}

/**
 * Resolves the API key by the contract's order: `SVC_API_KEY` (trimmed), else the key read
 * from a key file (`SVC_API_KEY_FILE` or the systemd credential: see config/key-file.ts),
 * else the stored one (a plain string is a key of the config file). Throws UsageError (exit 2)
 * when the value is a license key or cannot be sent (see {@link assertSendableKey}), and
 * SvcError `no_api_key` (exit 3) when there is none.
 */
export function resolveApiKey(sources: {
  env?: string | undefined;
  file?: { value: string; path: string; kind: "file" | "systemd-credential" } | undefined;
  stored?: string | { value: string; source: "keyring" | "config" } | undefined;
  origin: string;
}): ResolvedApiKey {
  const fromEnv = sources.env?.trim();
  const stored =
    typeof sources.stored === "string"
      ? { value: sources.stored, source: "config" as const }
      : sources.stored;
  const candidate: ResolvedApiKey | undefined =
    fromEnv !== undefined && fromEnv !== ""
      ? { value: fromEnv, source: "env" }
      : sources.file
        ? { value: sources.file.value, source: sources.file.kind, path: sources.file.path }
        : stored?.value
          ? stored
          : undefined;
  if (!candidate) {
    throw new SvcError(`no API key configured for ${sources.origin}`, {
      code: "no_api_key",
    });
  }
  if (isLicenseKey(candidate.value)) {
    throw new UsageError(
      `${candidate.source === "env" ? "the SVC_API_KEY value" : keySourceName(candidate)} is a license key (SVC_…), not an API key`,
      {
        code: "license_key_as_api_key",
      },
    );
  }
  assertSendableKey(candidate.value, keySourceName(candidate));
  return candidate;
}

/** The service's codes for a refusal of the key itself (spec "Errors"). */
const REFUSED_KEY_CODES = new Set(["invalid_api_key", "revoked_api_key", "expired_api_key"]);
const KEYS_PAGE = "Account › Connections › API keys";

/**
 * The service's refusal of a key, told with where that key came from, so the user fixes the
 * right one (cli-contract "Configuration and credentials"): `the API key from SVC_API_KEY was
 * refused: <service message>` with a hint to fix or unset SVC_API_KEY, or `the API key stored in
 * the config file for <origin> was refused: …` with a hint to run `svc-dl auth login`. Code,
 * status and request id are kept; any other error is returned as it is.
 */
export function withKeySource(
  err: ApiError,
  key: { source: ApiKeySource; origin: string; path?: string | undefined },
): ApiError {
  if (!REFUSED_KEY_CODES.has(err.code) || err.httpStatus === null) return err;
  const { where, hint } = refusedKeyText(key);
  return new ApiError({
    code: err.code,
    message: `${where} was refused: ${err.serviceMessage}`,
    httpStatus: err.httpStatus,
    requestId: err.requestId,
    hint,
  });
}

function refusedKeyText(key: { source: ApiKeySource; origin: string; path?: string | undefined }): {
  where: string;
  hint: string;
} {
  const create = `create one under ${KEYS_PAGE}`;
  switch (key.source) {
    case "env":
      return {
        where: "the API key from SVC_API_KEY",
        hint: `Set SVC_API_KEY to a valid key (${create}), or unset it and run \`svc-dl auth login\`.`,
      };
    case "file":
      return {
        where: `the API key in ${key.path} (SVC_API_KEY_FILE)`,
        hint: `Put a valid key in ${key.path} (${create}), or unset SVC_API_KEY_FILE and run \`svc-dl auth login\`.`,
      };
    case "systemd-credential":
      return {
        where: `the API key of the systemd credential ${key.path}`,
        hint: `Put a valid key (${create}) in the file the unit's LoadCredential=svc-api-key:… names, then restart the unit.`,
      };
    default:
      return {
        where: `the API key stored in the ${key.source === "keyring" ? "OS keyring" : "config file"} for ${key.origin}`,
        hint: `Run \`svc-dl auth login\` with a valid key (${create}); it replaces the stored one.`,
      };
  }
}

/**
 * Refuses a key that cannot travel in an HTTP header: anything but visible ASCII (a space or
 * line break inside it, a non-ASCII character from a copy-paste). Sent anyway, such a key makes
 * the HTTP layer fail before any request, which would read as a network failure (exit 7, with
 * retries). Throws UsageError (exit 2, code `malformed_api_key`); the message never shows the key.
 */
export function assertSendableKey(value: string, where: string): void {
  if (/^[\x21-\x7e]+$/.test(value)) return;
  throw new UsageError(
    `${where} contains spaces, line breaks or non-ASCII characters: it is not an API key`,
    {
      code: "malformed_api_key",
    },
  );
}
