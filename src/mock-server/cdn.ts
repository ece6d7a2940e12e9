/**
 * The CDN origin: serves signed file URLs
 * `/files/{kind}/{slug}/{edition}/{version}/{size}/{filename}?expires=…&sig=…`
 * as generated streams with a strong ETag, `Accept-Ranges: bytes`, Range,
 * If-Range, If-None-Match (304, switchable) and `Content-Disposition`.
 * Expired or badly signed URLs answer 403 (or 410) with a small JSON body.
 * Backpressure is honoured: memory does not grow with the file size.
 */
import type { Layout } from "./content.js";
import type { ServiceCore } from "./core.js";
import { FileStore } from "./files.js";
import { type RequestContext, sendError } from "./http-util.js";
import { decideRange } from "./range.js";
import type { FileSpec } from "./state.js";
import { streamBytes } from "./stream-bytes.js";

const PATH_RE = /^\/files\/(pack|asset)\/([^/]+)\/(standard|authoring)\/(\d+)\/(\d+)\/([^/]+)$/;

/** `Content-Disposition: attachment; filename="…"; filename*=UTF-8''…`. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const star = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${star}`;
}

/** Handle one request of the CDN origin. */
export async function handleCdn(core: ServiceCore, ctx: RequestContext): Promise<void> {
  const spec = requestedFile(core, ctx);
  if (spec === null) return;
  const layout = core.files.layout(spec);
  let etag = FileStore.etag(spec);
  if (core.faults.faults.changingEtag === true) {
    etag = `"${etag.slice(1, -1)}-g${++core.faults.etagGeneration}"`;
  }
  const size = layout.size;
  const headers: Record<string, string> = {
    ETag: etag,
    "Accept-Ranges": "bytes",
    "Content-Type": FileStore.contentType(spec),
    "Content-Disposition":
      core.faults.faults.contentDisposition ?? contentDisposition(FileStore.filename(spec)),
    "Cache-Control": "private, max-age=0",
  };

  const inm = ctx.req.headers["if-none-match"];
  if (core.settings.ifNoneMatch && inm !== undefined && matchesEtag(inm, etag)) {
    ctx.res.writeHead(304, { ETag: etag, "Cache-Control": headers["Cache-Control"] ?? "" });
    ctx.res.end();
    return;
  }
  const ifRangeRaw = ctx.req.headers["if-range"];
  const ifRange = typeof ifRangeRaw === "string" ? ifRangeRaw : undefined;
  const range = ctx.req.headers.range;
  const d =
    range !== undefined && core.faults.take("rangeNotSatisfiable")
      ? ({ kind: "unsatisfiable" } as const)
      : decideRange(range, ifRange, etag, size);
  if (d.kind === "unsatisfiable") {
    sendError(
      ctx,
      416,
      "range_not_satisfiable",
      `The range starts past the end of the file (${size} bytes).`,
      {
        "Content-Range": `bytes */${size}`,
        ETag: etag,
        "Accept-Ranges": "bytes",
      },
    );
    return;
  }
  const start = d.kind === "partial" ? d.start : 0;
  const end = d.kind === "partial" ? d.end : size - 1;
  if (d.kind === "partial") headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
  headers["Content-Length"] = String(end - start + 1);
  await sendBody(
    core,
    ctx,
    layout,
    { start, end, status: d.kind === "partial" ? 206 : 200 },
    headers,
  );
}

/**
 * The file a signed URL names, or null once the answer is sent: the injected `serverError`
 * (CDN origin), 405 for a method other than GET/HEAD, 404 for another path, then the
 * signature checks (`cdnExpired` fault, expired, invalid).
 */
function requestedFile(core: ServiceCore, ctx: RequestContext): FileSpec | null {
  const se = core.faults.faults.serverError;
  if (se !== undefined && se.origin === "cdn" && core.faults.take("serverError")) {
    sendError(ctx, se.status ?? 500, "internal_error", "Internal server error (injected fault).");
    return null;
  }
  const method = ctx.req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    sendError(ctx, 405, "method_not_allowed", "Use GET or HEAD.", { Allow: "GET, HEAD" });
    return null;
  }
  const m = PATH_RE.exec(ctx.url.pathname);
  if (m === null) {
    sendError(ctx, 404, "not_found", "No such file.");
    return null;
  }
  if (!signatureAccepted(core, ctx)) return null;
  const kind = m[1] === "asset" ? "asset" : "pack";
  const slug = decodeURIComponent(m[2] ?? "");
  return {
    kind,
    slug,
    edition: m[3] === "authoring" ? "authoring" : "standard",
    version: Number(m[4]),
    size: Number(m[5]),
    assetCount: kind === "pack" ? (core.state.pack(slug)?.asset_count ?? 1) : 1,
  };
}

/** Whether the URL's signature holds and has not expired (or the `cdnExpired` fault says so). */
function signatureAccepted(core: ServiceCore, ctx: RequestContext): boolean {
  const check = core.signer.verify(ctx.url.pathname, ctx.url.searchParams, core.now());
  const expiredFault = core.faults.faults.cdnExpired;
  const expiredStatus =
    check === "ok" && expiredFault !== undefined && core.faults.take("cdnExpired")
      ? (expiredFault.status ?? 403)
      : check === "expired"
        ? core.settings.expiredUrlStatus
        : null;
  if (expiredStatus !== null) {
    sendError(
      ctx,
      expiredStatus,
      "url_expired",
      "The signed URL has expired; ask the API for a new one.",
    );
    return false;
  }
  if (check === "invalid") {
    sendError(ctx, 403, "invalid_signature", "The URL signature is missing or invalid.");
    return false;
  }
  return true;
}

/**
 * Writes the head and bytes `[start, end]` of the file, cut short by the `dropAfterBytes`
 * (connection destroyed) or `shortBody` (clean close) faults on GET.
 */
async function sendBody(
  core: ServiceCore,
  ctx: RequestContext,
  layout: Layout,
  part: { start: number; end: number; status: 200 | 206 },
  headers: Record<string, string>,
): Promise<void> {
  const method = ctx.req.method ?? "GET";
  let limit = part.end - part.start + 1;
  let drop = false;
  const dropFault = core.faults.faults.dropAfterBytes;
  const shortFault = core.faults.faults.shortBody;
  if (method === "GET" && dropFault !== undefined && core.faults.take("dropAfterBytes")) {
    limit = Math.min(limit, dropFault.bytes);
    drop = true;
  } else if (method === "GET" && shortFault !== undefined && core.faults.take("shortBody")) {
    limit = Math.min(limit, shortFault.bytes);
    headers.Connection = "close";
  }
  const flip = flipOffset(core, method, layout.size, part.start, part.start + limit - 1);
  ctx.res.writeHead(part.status, headers);
  if (method === "HEAD") {
    ctx.res.end();
    return;
  }
  const complete = await streamBytes(
    ctx.res,
    layout,
    part.start,
    part.start + limit - 1,
    () => core.faults.faults.throttleBytesPerSecond,
    core.faults.faults.chunkSizes,
    flip,
  );
  if (!complete) return;
  if (drop) {
    // let the bytes written so far reach the socket, then cut the connection
    await new Promise<void>((r) => ctx.res.write(Buffer.alloc(0), () => r()));
    ctx.res.destroy();
    return;
  }
  ctx.res.end();
}

/** The file offset the `flipByte` fault damages in `[start, end]` of a GET (counted), if any. */
function flipOffset(
  core: ServiceCore,
  method: string,
  size: number,
  start: number,
  end: number,
): number | undefined {
  const fault = core.faults.faults.flipByte;
  if (method !== "GET" || fault === undefined) return undefined;
  const at = fault.offset < 0 ? size + fault.offset : fault.offset;
  if (at < start || at > end || !core.faults.take("flipByte")) return undefined;
  return at;
}

function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .includes(etag);
}
