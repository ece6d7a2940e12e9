/**
 * API key format (spec, Authentication 2): `svc_live_` + 32 letters/digits +
 * `_` + 8 lower-case hex digits, the CRC-32 of the 32-character body. A key
 * must be sent whole: anything else (truncated, wrong checksum, a license key)
 * is malformed and answers 401 `invalid_api_key`.
 */
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

const KEY_RE = /^svc_live_([A-Za-z0-9]{32})_([0-9a-f]{8})$/;
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Checksum portion (8 hex chars) for a 32-character key body. */
export function keyChecksum(body: string): string {
  return (crc32(body) >>> 0).toString(16).padStart(8, "0");
}

/** True when `key` has the API key shape and a correct checksum. */
export function isWellFormedApiKey(key: string): boolean {
  const m = KEY_RE.exec(key);
  return m !== null && m[1] !== undefined && keyChecksum(m[1]) === m[2];
}

/** A well-formed API key whose body derives deterministically from `seed` (for fixtures). */
export function makeApiKey(seed: string): string {
  const digest = createHash("sha256").update(`svc-dl-mock:${seed}`).digest();
  let body = "";
  for (let i = 0; i < 32; i++) body += ALNUM[(digest[i] ?? 0) % ALNUM.length];
  return `svc_live_${body}_${keyChecksum(body)}`;
}

/** The spec's `preview`: a short leading portion of the key (first 13 characters), never the whole key. */
export function keyPreview(key: string): string {
  return key.slice(0, 13);
}
