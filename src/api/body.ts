import type { Dispatcher } from "undici";

/** A response body stream as undici gives it. */
export type ResponseBody = Dispatcher.ResponseData["body"];

/**
 * Reads at most `limitBytes` of a body as UTF-8 text and discards the rest (the connection is
 * then closed rather than drained, so an endless body cannot hold us). Returns the text and
 * whether it was cut.
 */
export async function readBodyText(
  body: ResponseBody,
  limitBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > limitBytes) {
      chunks.push(buf.subarray(0, limitBytes - size));
      truncated = true;
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  if (truncated) body.destroy();
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

/** Discards a body without reading it into memory; never throws. */
export function discardBody(body: ResponseBody): void {
  body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}
