import { SvcError } from "../errors/svc-error.js";

/**
 * A download whose bytes are not the file promised: wrong size, an HTML page instead of a ZIP,
 * a truncated archive (cli-contract "Downloads"). Exit 7, code `corrupt_download`; the engine
 * has already discarded the partial data.
 */
export function corruptDownload(
  reason: string,
  response: { httpStatus?: number | null; requestId?: string | null } = {},
): SvcError {
  return new SvcError(`corrupt download: ${reason}; nothing was saved`, {
    code: "corrupt_download",
    httpStatus: response.httpStatus ?? null,
    requestId: response.requestId ?? null,
  });
}
