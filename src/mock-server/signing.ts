/**
 * Signed CDN URLs: `?expires=<unix seconds>&sig=<hex HMAC-SHA256(secret, path + "\n" + expires)>`.
 * The secret is random per mock instance.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Result of checking a signed URL. */
export type SignatureCheck = "ok" | "expired" | "invalid";

/** Signs and verifies CDN paths. */
export class Signer {
  private readonly secret = randomBytes(32);

  private mac(path: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${path}\n${expires}`).digest("hex");
  }

  /** Query string (without `?`) signing `path` for `ttlSeconds` seconds from now. */
  sign(path: string, ttlSeconds: number, nowMs: number = Date.now()): string {
    const expires = Math.floor(nowMs / 1000) + Math.max(0, Math.floor(ttlSeconds));
    return `expires=${expires}&sig=${this.mac(path, expires)}`;
  }

  /** Check the `expires` and `sig` query values for `path`. */
  verify(path: string, params: URLSearchParams, nowMs: number = Date.now()): SignatureCheck {
    const expires = Number(params.get("expires"));
    const sig = params.get("sig") ?? "";
    if (!Number.isInteger(expires) || !/^[0-9a-f]{64}$/.test(sig)) return "invalid";
    const want = Buffer.from(this.mac(path, expires), "hex");
    if (!timingSafeEqual(want, Buffer.from(sig, "hex"))) return "invalid";
    return expires * 1000 <= nowMs ? "expired" : "ok";
  }
}
