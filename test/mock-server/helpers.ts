import { crc32 } from "node:zlib";
import type { MockService } from "../../src/mock-server/index.js";

export { sha256 } from "../helpers/files.js";

/** Options of `call()`. */
export interface CallOptions {
  key?: string;
  /** "bearer" (default) or "x-api-key". */
  via?: "bearer" | "x-api-key";
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** Follow redirects (default false: see the 302). */
  follow?: boolean;
}

/** A finished HTTP exchange. */
export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  json: unknown;
}

/** Make one request; `pathOrUrl` is relative to `mock.baseUrl` unless absolute. */
export async function call(
  mock: MockService,
  pathOrUrl: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const url = pathOrUrl.startsWith("http") ? pathOrUrl : `${mock.baseUrl}${pathOrUrl}`;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) {
    if (opts.via === "x-api-key") headers["X-API-Key"] = opts.key;
    else headers.Authorization = `Bearer ${opts.key}`;
  }
  const init: RequestInit = {
    method: opts.method ?? "GET",
    headers,
    redirect: opts.follow === true ? "follow" : "manual",
  };
  if (opts.body !== undefined) init.body = opts.body;
  const res = await fetch(url, init);
  const body = Buffer.from(await res.arrayBuffer());
  let json: unknown = null;
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      json = null;
    }
  }
  return { status: res.status, headers: res.headers, body, json };
}

/** The `error` object of a reply (throws if absent). */
export function errorOf(r: Reply): { code: string; message: string; request_id: string } {
  const e = (r.json as { error?: { code: string; message: string; request_id: string } } | null)
    ?.error;
  if (e === undefined)
    throw new Error(`no error object in ${r.status} ${r.body.toString("utf8").slice(0, 200)}`);
  return e;
}

/** Assert-free summary of the rate-limit headers of a reply. */
export function rateHeaders(r: Reply): Record<string, string | null> {
  return {
    policy: r.headers.get("ratelimit-policy"),
    rate: r.headers.get("ratelimit"),
    limit: r.headers.get("x-ratelimit-limit"),
    remaining: r.headers.get("x-ratelimit-remaining"),
    reset: r.headers.get("x-ratelimit-reset"),
    retryAfter: r.headers.get("retry-after"),
  };
}

/** True when none of the rate-limit headers is present. */
export function hasNoRateHeaders(r: Reply): boolean {
  return Object.values(rateHeaders(r)).every((v) => v === null);
}

/** Follow the API route's 302 and return the CDN URL. */
export async function cdnUrlFor(
  mock: MockService,
  path: string,
  key = mock.apiKey,
): Promise<string> {
  const r = await call(mock, path, { key });
  if (r.status !== 302) throw new Error(`expected 302, got ${r.status} ${r.body.toString("utf8")}`);
  const loc = r.headers.get("location");
  if (loc === null) throw new Error("no Location");
  return loc;
}

/** One entry read from a ZIP archive. */
export interface ZipEntry {
  name: string;
  size: number;
  crc: number;
  data: Buffer;
}

/**
 * Parse a classic ZIP: find the EOCD, walk the central directory, read each
 * local header and its stored data, and check sizes, method and CRC-32.
 * Throws on any inconsistency.
 */
export function readZip(buf: Buffer): ZipEntry[] {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > buf.length) throw new Error("no EOCD");
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (cdOffset + cdSize !== eocd) throw new Error("central directory does not end at EOCD");
  const out: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad CD signature at ${p}`);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const csize = buf.readUInt32LE(p + 20);
    const usize = buf.readUInt32LE(p + 24);
    const nlen = buf.readUInt16LE(p + 28);
    const xlen = buf.readUInt16LE(p + 30);
    const clen = buf.readUInt16LE(p + 32);
    const off = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nlen).toString("utf8");
    if (method !== 0 || csize !== usize) throw new Error(`${name}: not stored`);
    if (buf.readUInt32LE(off) !== 0x04034b50) throw new Error(`${name}: bad local header`);
    const lnlen = buf.readUInt16LE(off + 26);
    const lxlen = buf.readUInt16LE(off + 28);
    if (buf.readUInt32LE(off + 14) !== crc) throw new Error(`${name}: local CRC differs`);
    const start = off + 30 + lnlen + lxlen;
    const data = buf.subarray(start, start + usize);
    if (crc32(data) >>> 0 !== crc) throw new Error(`${name}: CRC mismatch`);
    out.push({ name, size: usize, crc, data });
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

/** Check a GLB 2.0 buffer; returns its parsed JSON chunk. Throws when invalid. */
export function readGlb(buf: Buffer): { json: Record<string, unknown>; binLength: number } {
  if (buf.toString("latin1", 0, 4) !== "glTF") throw new Error("no glTF magic");
  if (buf.readUInt32LE(4) !== 2) throw new Error("not version 2");
  if (buf.readUInt32LE(8) !== buf.length) throw new Error("length field differs from size");
  const jlen = buf.readUInt32LE(12);
  if (buf.readUInt32LE(16) !== 0x4e4f534a) throw new Error("first chunk is not JSON");
  const json = JSON.parse(buf.toString("utf8", 20, 20 + jlen)) as Record<string, unknown>;
  const b = 20 + jlen;
  const blen = buf.readUInt32LE(b);
  if (buf.readUInt32LE(b + 4) !== 0x004e4942) throw new Error("second chunk is not BIN");
  if (b + 8 + blen !== buf.length) throw new Error("chunks do not fill the file");
  return { json, binLength: blen };
}
