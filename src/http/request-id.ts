import { randomBytes } from "node:crypto";

/** A fresh request id for the `x-request-id` header: `svcdl_` + 20 base64url characters. */
export function newRequestId(): string {
  return `svcdl_${randomBytes(15).toString("base64url")}`;
}
