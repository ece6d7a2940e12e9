/**
 * Small HTTP helpers shared by both origins: JSON bodies, the spec's error
 * object `{ error: { code, message, request_id } }`, and reading request bodies.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Per-request context shared by the handlers. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Parsed URL (path + query) of the request. */
  url: URL;
  /** The request id, already set as the `x-request-id` response header. */
  requestId: string;
  /** Client IP address (the key of the `public` and `auth` policies). */
  ip: string;
  /** Request body text (null when empty). */
  body: string | null;
}

/** Send a JSON body with `status` and extra headers. */
export function sendJson(
  ctx: RequestContext,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
  malformed = false,
): void {
  let text = JSON.stringify(payload);
  if (malformed) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  const body = Buffer.from(text, "utf8");
  ctx.res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(body.length),
    "Cache-Control": "no-store",
  });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : body);
}

/** Send the spec's error object; `request_id` equals the `x-request-id` header. */
export function sendError(
  ctx: RequestContext,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(ctx, status, { error: { code, message, request_id: ctx.requestId } }, headers);
}

/** Set several response headers at once (kept when a later writeHead adds more). */
export function setHeaders(ctx: RequestContext, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) ctx.res.setHeader(k, v);
}

/** Read a request body as UTF-8 text, at most `limit` bytes (rest discarded); null when empty. */
export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string | null> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    if (n < limit) chunks.push(b.subarray(0, limit - n));
    n += b.length;
  }
  if (n === 0) return null;
  return Buffer.concat(chunks).toString("utf8");
}

/** A small HTML error page (fault `htmlErrorPage`). */
export function sendHtmlError(ctx: RequestContext, status: number): void {
  const body = Buffer.from(
    `<!DOCTYPE html>\n<html><head><title>${status} Error</title></head>` +
      `<body><h1>${status} Error</h1><p>The upstream server is unavailable.</p>` +
      `<hr><address>mock-proxy</address></body></html>\n`,
    "utf8",
  );
  ctx.res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": String(body.length),
  });
  ctx.res.end(body);
}
