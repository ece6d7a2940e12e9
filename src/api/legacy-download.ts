import { CODES, isErrorCode, serviceCode } from "../errors/codes.js";
import { SvcError } from "../errors/svc-error.js";
import type { HttpClient, HttpResponse } from "../http/client.js";
import { headerValue } from "../http/client.js";
import { Redactor } from "../http/redact.js";
import type { DownloadSource, Edition, ItemKind } from "../model.js";

/** The JSON body of `POST {base_url}/api/download` (spec "POST /api/download (legacy)"). */
interface LegacyRequestBody {
  licenseKey: string;
  packSlug?: string;
  assetSlug?: string;
  edition?: "authoring";
}

/**
 * The legacy download request (spec "POST /api/download (legacy)"): `POST {base_url}/api/download`
 * with the license key, the pack or asset slug and, for a pack's authoring edition,
 * `edition: "authoring"` in a JSON body; sent without the API key.
 */
export function legacySource(
  client: HttpClient,
  req: { licenseKey: string; kind: ItemKind; slug: string; edition: Edition | null },
): DownloadSource {
  const body: LegacyRequestBody = {
    licenseKey: req.licenseKey,
    ...(req.kind === "pack" ? { packSlug: req.slug } : { assetSlug: req.slug }),
    ...(req.edition === "authoring" ? { edition: "authoring" as const } : {}),
  };
  return {
    url: client.serviceUrl("api/download"),
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", accept: "*/*" },
    authenticate: false,
  };
}

/**
 * Builds the denial error of the legacy endpoint, whose shape the spec does not show
 * (cli-contract `legacy get`): the HTTP status, any JSON error code (`error.code`, `code`, or a
 * string `error`) with its message, else a short sanitized excerpt of the body, and the
 * `x-request-id`. The license key is scrubbed from everything. Exit code and hint from the error
 * table when it knows the code, else by status (401 → 3, 403 → 4, 404/410 → 5, 429 → 6, else 7)
 * with the legacy hint.
 */
export async function legacyDenial(res: HttpResponse, licenseKey: string): Promise<SvcError> {
  const { text } = await res.body.text(16 * 1024);
  let code: string | undefined;
  let serviceMessage: string | undefined;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const error = json.error;
    if (error && typeof error === "object") {
      const e = error as Record<string, unknown>;
      if (typeof e.code === "string") code = e.code;
      if (typeof e.message === "string") serviceMessage = e.message;
    } else if (typeof error === "string") {
      code = error;
    }
    if (code === undefined && typeof json.code === "string") code = json.code;
    if (serviceMessage === undefined && typeof json.message === "string")
      serviceMessage = json.message;
  } catch {
    // not JSON: an excerpt is shown instead
  }
  const safeCode = code !== undefined ? sanitize(code, licenseKey).slice(0, 64) : undefined;
  let detail: string;
  if (safeCode !== undefined) {
    detail = serviceMessage ? `: ${sanitize(serviceMessage, licenseKey).slice(0, 200)}` : "";
  } else {
    const type =
      headerValue(res.headers, "content-type")?.split(";")[0]?.trim() || "no content type";
    const excerpt = sanitize(text.replace(/<[^>]*>/g, " "), licenseKey).slice(0, 120);
    detail = excerpt ? ` (${type}: "${excerpt}")` : ` (${type}, empty body)`;
  }
  const requestId = headerValue(res.headers, "x-request-id") ?? null;
  return new SvcError(`legacy download refused with HTTP ${res.status}${detail}`, {
    code: safeCode === undefined ? "legacy_denied" : serviceCode(safeCode),
    httpStatus: res.status,
    requestId: requestId !== null ? sanitize(requestId, licenseKey).slice(0, 64) : null,
    // a code the table does not know gets the legacy hint; a known one the table's, per command
    hint: safeCode === undefined || isErrorCode(safeCode) ? undefined : CODES.legacy_denied.hint,
  });
}

/** One line of text with control characters and the license key removed. */
export function sanitize(text: string, licenseKey: string): string {
  let out = text
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (licenseKey.length >= 4) out = out.split(licenseKey).join("[license key]");
  // …and the key without its SVC_ prefix, or any 16-character fragment of it.
  return new Redactor("", [licenseKey]).text(out);
}

/** Removes the license key from an error's message and hint before it is printed. */
export function scrubError(err: unknown, licenseKey: string): unknown {
  if (licenseKey.length < 4 || !(err instanceof Error)) return err;
  const redactor = new Redactor("", [licenseKey]);
  if (err instanceof SvcError) {
    // also every fragment of the key and the key without its prefix (the one redactor's rules)
    const copy = err.mapText((s) => redactor.text(s.split(licenseKey).join("[license key]")));
    return Object.assign(copy, {
      requestId: copy.requestId === null ? null : redactor.text(copy.requestId),
    });
  }
  err.message = redactor.text(err.message.split(licenseKey).join("[license key]"));
  return err;
}
