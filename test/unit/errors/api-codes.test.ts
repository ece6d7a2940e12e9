import { describe, expect, it } from "vitest";
import {
  exitCodeForApiCode,
  hintForApiCode,
  isAccountLevelCode,
  KNOWN_API_CODES,
} from "../../../src/errors/api-codes.js";
import { ApiError } from "../../../src/errors/api-error.js";

/** The spec's error table with the contract's exit codes. */
const SPEC: [string, number, number][] = [
  ["missing_api_key", 401, 3],
  ["invalid_api_key", 401, 3],
  ["revoked_api_key", 401, 3],
  ["expired_api_key", 401, 3],
  ["api_disabled", 403, 4],
  ["not_eligible", 403, 4],
  ["blocked", 403, 4],
  ["insufficient_scope", 403, 4],
  ["not_entitled", 403, 4],
  ["not_found", 404, 5],
  ["file_unavailable", 404, 5],
  ["range_not_satisfiable", 416, 7],
  ["rate_limited", 429, 6],
  ["internal_error", 500, 7],
];

describe("api-codes: the one table", () => {
  it("knows every code of the spec, with the contract's exit code and a hint", () => {
    expect([...KNOWN_API_CODES].sort()).toEqual(SPEC.map(([c]) => c).sort());
    for (const [code, status, exit] of SPEC) {
      expect(exitCodeForApiCode(code, status), code).toBe(exit);
      expect(hintForApiCode(code), code).toBeTruthy();
      const err = new ApiError({ code, message: "m", httpStatus: status, requestId: "rid_1234" });
      expect(err.exitCode).toBe(exit);
      expect(err.hint).toBe(hintForApiCode(code));
    }
  });

  it("says what to do next", () => {
    expect(hintForApiCode("revoked_api_key")).toMatch(/new key under Account › Connections/);
    expect(hintForApiCode("insufficient_scope")).toMatch(/downloads:read/);
    expect(hintForApiCode("insufficient_scope")).toMatch(/cannot be edited/);
    expect(hintForApiCode("not_eligible")).toMatch(/purchase/);
    expect(hintForApiCode("blocked")).toMatch(/contact support.*request id/);
  });

  it("falls back on the HTTP status for codes it does not know", () => {
    expect(exitCodeForApiCode("new_code", 401)).toBe(3);
    expect(exitCodeForApiCode("new_code", 403)).toBe(4);
    expect(exitCodeForApiCode("new_code", 404)).toBe(5);
    expect(exitCodeForApiCode("new_code", 429)).toBe(6);
    expect(exitCodeForApiCode("new_code", 400)).toBe(7);
    expect(hintForApiCode("new_code")).toBeUndefined();
  });

  it("names the account-level codes that stop packs sync", () => {
    expect(isAccountLevelCode("blocked")).toBe(true);
    expect(isAccountLevelCode("expired_api_key")).toBe(true);
    expect(isAccountLevelCode("not_entitled")).toBe(false);
    expect(isAccountLevelCode("insufficient_scope")).toBe(false);
  });
});
