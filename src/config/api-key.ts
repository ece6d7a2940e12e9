import { ApiError } from "../errors/api-error.js";
import { SvcError } from "../errors/svc-error.js";
import { UsageError } from "../errors/usage-error.js";

/** Where the API key came from. */
export type ApiKeySource = "env" | "config";

/** A resolved API key. The value must never be printed; use `keyPreview` of io/key-preview.ts. */
export interface ResolvedApiKey {
  readonly value: string;
  readonly source: ApiKeySource;
}

/** True for a value that looks like a license key (`SVC_…`), which is not an API key. */
export function isLicenseKey(value: string): boolean {
  return value.startsWith("SVC_");
}

/**
 * Resolves the API key: `SVC_API_KEY`, else the key stored for this service origin.
 * Throws UsageError (exit 2) when the value is a license key or cannot be sent (see
 * {@link assertSendableKey}), and SvcError `no_api_key`
 * (exit 3) when there is none.
 */
export function resolveApiKey(sources: {
  env?: string | undefined;
  stored?: string | undefined;
  origin: string;
}): ResolvedApiKey {
  const fromEnv = sources.env?.trim();
  const candidate: ResolvedApiKey | undefined =
    fromEnv !== undefined && fromEnv !== ""
      ? { value: fromEnv, source: "env" }
      : sources.stored
        ? { value: sources.stored, source: "config" }
        : undefined;
  if (!candidate) {
    throw new SvcError(`no API key configured for ${sources.origin}`, {
      code: "no_api_key",
    });
  }
  if (isLicenseKey(candidate.value)) {
    throw new UsageError(
      `the ${candidate.source === "env" ? "SVC_API_KEY value" : "stored key"} is a license key (SVC_…), not an API key`,
      {
        code: "license_key_as_api_key",
      },
    );
  }
  assertSendableKey(candidate.value, candidate.source === "env" ? "SVC_API_KEY" : "the stored key");
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
  key: { source: ApiKeySource; origin: string },
): ApiError {
  if (!REFUSED_KEY_CODES.has(err.code) || err.httpStatus === null) return err;
  const env = key.source === "env";
  const where = env
    ? "the API key from SVC_API_KEY"
    : `the API key stored in the config file for ${key.origin}`;
  return new ApiError({
    code: err.code,
    message: `${where} was refused: ${err.serviceMessage}`,
    httpStatus: err.httpStatus,
    requestId: err.requestId,
    hint: env
      ? `Set SVC_API_KEY to a valid key (create one under ${KEYS_PAGE}), or unset it and run \`svc-dl auth login\`.`
      : `Run \`svc-dl auth login\` with a valid key (create one under ${KEYS_PAGE}); it replaces the stored one.`,
  });
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
