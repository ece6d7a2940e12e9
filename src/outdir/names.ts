import contentDisposition from "content-disposition";
import { slugProblem } from "../api/slug.js";
import { UsageError } from "../errors/usage-error.js";
import type { Edition, ItemKind } from "../model.js";

export type { Edition, ItemKind } from "../model.js";

/** Longest file name kept, in UTF-8 bytes (most file systems allow 255). */
const MAX_NAME_BYTES = 200;

/**
 * Checks a pack or asset slug given on the command line with the one slug rule
 * (src/api/slug.ts: not empty, `.` or `..`, no `/`, `\\`, control or format character). Throws
 * UsageError (exit 2, code `invalid_slug`). Returns the slug unchanged; callers percent-encode it.
 */
export function validateSlug(slug: string, what = "slug"): string {
  const problem = slugProblem(slug);
  if (problem) {
    throw new UsageError(`invalid ${what} ${JSON.stringify(slug)}: it ${problem}`, {
      code: "invalid_slug",
      detail: {
        kind: what.startsWith("asset") ? "asset" : what.startsWith("pack") ? "pack" : undefined,
      },
    });
  }
  return slug;
}

/**
 * Reduces any name to a safe base name for a file inside the output directory
 * (cli-contract "Downloads"): only the part after the last `/` or `\`; control characters,
 * characters Windows refuses (`<>:"|?*`) and bidi controls removed; leading dots and
 * surrounding spaces stripped (no `.`/`..`, no hidden files); cut to 200 UTF-8 bytes keeping
 * the extension; a Windows device name (`CON`, `NUL.txt`, `COM1`…) prefixed with `_`. Returns
 * undefined when nothing usable is left.
 */
export function safeBaseName(raw: string): string | undefined {
  const lastPart = raw.split(/[/\\]/).pop() ?? "";
  let name = lastPart
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
    .replace(/[<>:"|?*]/g, "_")
    .trim()
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "");
  if (name === "" || name === "." || name === "..") return undefined;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) name = truncateKeepingExtension(name);
  // A Windows device name (with any extension) would write to the device, not to a file.
  if (WINDOWS_DEVICE.test(name)) name = `_${name}`;
  return name === "" ? undefined : name;
}

/**
 * True when `name`, read from an untrusted place (the state file, partial metadata), is already
 * a safe base name: {@link safeBaseName} leaves it unchanged (so no `/`, `\\`, `..`, leading dot
 * such as `.svc-dl`, control character or device name).
 */
export function isSafeBaseName(name: string): boolean {
  return typeof name === "string" && name !== "" && safeBaseName(name) === name;
}

/** `CON`, `PRN`, `AUX`, `NUL`, `COM0-9`, `LPT0-9` (and ¹²³), `CONIN$`, `CONOUT$`, any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

function truncateKeepingExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
  let stem = name.slice(0, name.length - ext.length);
  while (Buffer.byteLength(stem + ext) > MAX_NAME_BYTES) stem = [...stem].slice(0, -1).join("");
  return stem + ext;
}

/** The contract's fallback names: `<slug>.zip`, `<slug>-authoring.zip`, `<slug>.glb` (made safe). */
export function fallbackFileName(kind: ItemKind, slug: string, edition: Edition | null): string {
  const name =
    kind === "asset"
      ? `${slug}.glb`
      : edition === "authoring"
        ? `${slug}-authoring.zip`
        : `${slug}.zip`;
  return safeBaseName(name) ?? (kind === "asset" ? "asset.glb" : "pack.zip");
}

/**
 * The file name a response asks for: `Content-Disposition` parsed with the `content-disposition`
 * package (`filename*` preferred over `filename`), reduced by {@link safeBaseName}. Returns
 * undefined when the header is absent, unparsable or names nothing safe.
 */
export function nameFromContentDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let params: Record<string, string>;
  try {
    params = contentDisposition.parse(header).parameters;
  } catch {
    return lenientFilename(header);
  }
  const raw = params.filename;
  return raw === undefined ? undefined : safeBaseName(raw);
}

/**
 * A last try for headers the strict parser refuses (e.g. an unquoted name with spaces):
 * the plain `filename=` value, still reduced to a safe base name.
 */
function lenientFilename(header: string): string | undefined {
  const match = /(?:^|;)\s*filename\s*=\s*("([^"]*)"|[^;]*)/i.exec(header);
  if (!match) return undefined;
  const value = match[2] ?? match[1] ?? "";
  return safeBaseName(value);
}
