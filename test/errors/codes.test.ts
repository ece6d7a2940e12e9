import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import {
  CODES,
  exitCodeFor,
  isRetryable,
  KNOWN_API_CODES,
  NO_COMMAND,
  renderHint,
  scopeOf,
} from "../../src/errors/codes.js";
import { ExitCode } from "../../src/errors/exit-codes.js";
import { NetworkError } from "../../src/errors/network-error.js";
import { UsageError } from "../../src/errors/usage-error.js";

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

describe("codes: the one table", () => {
  it("knows every code of the spec, with the contract's exit code and a hint", () => {
    expect([...KNOWN_API_CODES].sort()).toEqual(SPEC.map(([c]) => c).sort());
    for (const [code, status, exit] of SPEC) {
      expect(exitCodeFor(code, status), code).toBe(exit);
      expect(renderHint(code, NO_COMMAND), code).toEqual(expect.any(String));
      const err = new ApiError({ code, message: "m", httpStatus: status, requestId: "rid_1234" });
      expect(err.exitCode).toBe(exit);
    }
  });

  it("has the contract's exit code for the local codes", () => {
    expect(exitCodeFor("no_api_key", null)).toBe(ExitCode.auth);
    expect(exitCodeFor("file_exists", null)).toBe(ExitCode.fileSystem);
    expect(exitCodeFor("locked", null)).toBe(ExitCode.fileSystem);
    expect(exitCodeFor("unsafe_config", null)).toBe(ExitCode.fileSystem);
    expect(exitCodeFor("binary_to_terminal", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("lock_mismatch", null)).toBe(ExitCode.lockMismatch);
    expect(exitCodeFor("tls_error", null)).toBe(ExitCode.network);
    expect(exitCodeFor("cancelled", null)).toBe(ExitCode.sigint);
    expect(exitCodeFor("bad_framing", null)).toBe(ExitCode.network);
    expect(exitCodeFor("insecure_url", null)).toBe(ExitCode.network);
    expect(exitCodeFor("invalid_proxy", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("invalid_ca_file", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("invalid_manifest", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("manifest_missing", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("invalid_lock", null)).toBe(ExitCode.usage);
    expect(exitCodeFor("unsafe_cache_dir", null)).toBe(ExitCode.fileSystem);
    expect(exitCodeFor("install_incomplete", null)).toBe(ExitCode.failure);
    expect(exitCodeFor("get_incomplete", null)).toBe(ExitCode.failure);
    expect(exitCodeFor("aborted", null)).toBe(ExitCode.sigint);
    expect(isRetryable("bad_framing", null)).toBe(true);
    expect(isRetryable("invalid_ca_file", null)).toBe(false);
  });

  it("says which failures may pass when run again later", () => {
    expect(isRetryable("rate_limited", 429)).toBe(true);
    expect(isRetryable("network_error", null)).toBe(true);
    expect(isRetryable("internal_error", 500)).toBe(true);
    expect(isRetryable("tls_error", null)).toBe(false);
    expect(isRetryable("dns_error", null)).toBe(false);
    expect(isRetryable("invalid_api_key", 401)).toBe(false);
    expect(isRetryable("new_code", 503)).toBe(true);
    expect(isRetryable("new_code", 400)).toBe(false);
    expect(new UsageError("x").retryable).toBe(false);
    expect(new NetworkError("x").retryable).toBe(true);
  });

  it("says what to do next", () => {
    expect(renderHint("revoked_api_key", NO_COMMAND)).toMatch(
      /new key under Account › Connections/,
    );
    expect(renderHint("insufficient_scope", NO_COMMAND)).toMatch(/cannot be edited/);
    expect(renderHint("blocked", NO_COMMAND)).toMatch(/contact support.*request id/);
  });

  it("falls back on the HTTP status for codes it does not know", () => {
    expect(exitCodeFor("new_code", 401)).toBe(3);
    expect(exitCodeFor("new_code", 403)).toBe(4);
    expect(exitCodeFor("new_code", 404)).toBe(5);
    expect(exitCodeFor("new_code", 429)).toBe(6);
    expect(exitCodeFor("new_code", 400)).toBe(7);
    expect(renderHint("new_code", NO_COMMAND)).toBeNull();
    expect(scopeOf("new_code")).toBe("item");
  });

  it("names the scope of each code: account-level codes, run-level codes, item failures", () => {
    expect(scopeOf("blocked")).toBe("account");
    expect(scopeOf("expired_api_key")).toBe("account");
    expect(scopeOf("no_api_key")).toBe("account");
    expect(scopeOf("insufficient_scope")).toBe("run");
    expect(scopeOf("no_base_url")).toBe("run");
    expect(scopeOf("no_space")).toBe("run");
    expect(scopeOf("not_entitled")).toBe("item");
    expect(scopeOf("file_exists")).toBe("item");
    expect(scopeOf("invalid_slug")).toBe("item");
  });

  it("uses only the named exit codes", () => {
    const named = new Set<number>(Object.values(ExitCode));
    for (const [code, entry] of Object.entries(CODES)) {
      if (entry.exitCode === "status") continue;
      expect(named.has(entry.exitCode), code).toBe(true);
    }
  });
});
