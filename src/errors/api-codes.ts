/**
 * The API-code view of the one error table (`codes.ts`), kept for modules that import it from
 * here. New code imports from `codes.ts`.
 */
import {
  exitCodeFor,
  isAccountLevelCode,
  KNOWN_API_CODES,
  NO_COMMAND,
  renderHint,
} from "./codes.js";

export { isAccountLevelCode, KNOWN_API_CODES };

/** Exit code for an API error code, falling back on the HTTP status for unknown codes. */
export function exitCodeForApiCode(code: string, httpStatus: number): number {
  return exitCodeFor(code, httpStatus);
}

/** What to do next for an API error code outside any command, or undefined for unknown codes. */
export function hintForApiCode(code: string): string | undefined {
  return renderHint(code, NO_COMMAND) ?? undefined;
}
