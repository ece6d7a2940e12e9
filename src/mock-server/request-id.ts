/**
 * The request id rule (spec, Errors): a client-sent `x-request-id` of 8–64
 * characters from letters, digits, `_` and `-` is used as is; otherwise the
 * mock generates one (`req_` + 24 hex characters).
 */
import { randomBytes } from "node:crypto";

const VALID = /^[A-Za-z0-9_-]{8,64}$/;

/** True when `value` may be echoed as a request id. */
export function isValidRequestId(value: string): boolean {
  return VALID.test(value);
}

/** A fresh request id, e.g. `req_4f1c0a9e2b7d3c5a6e8f0b1d`. */
export function generateRequestId(): string {
  return `req_${randomBytes(12).toString("hex")}`;
}

/** The request id for a request given its `x-request-id` header value(s). */
export function requestIdFor(header: string | string[] | undefined): string {
  if (typeof header === "string" && isValidRequestId(header)) return header;
  return generateRequestId();
}
