import { randomBytes } from "node:crypto";

/** The spec's request id alphabet and length: 8 to 64 of `[A-Za-z0-9_-]`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** A fresh request id for the `x-request-id` header: `svcdl_` + 20 base64url characters. */
export function newRequestId(): string {
  return `svcdl_${randomBytes(15).toString("base64url")}`;
}
