import type { ResponseBody } from "./response-body.js";

export type { ResponseBody } from "./response-body.js";

/**
 * Reads at most `limitBytes` of a body as UTF-8 text; past it the response is aborted, so an
 * endless body cannot hold us. Returns the text and whether it was cut. Rejects with the
 * transfer's error (connection lost, bad framing, silence).
 */
export function readBodyText(
  body: ResponseBody,
  limitBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  return body.text(limitBytes);
}

/** Discards a body (a short one is read to its end to keep the connection alive); never throws. */
export function discardBody(body: ResponseBody): void {
  body.dump();
}
