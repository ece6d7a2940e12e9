import { describe, expect, it } from "vitest";
import { isLicenseKey, resolveApiKey, withKeySource } from "../../src/config/api-key.js";
import { ApiError } from "../../src/errors/api-error.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { keyPreview, storedKeyPreview } from "../../src/io/key-preview.js";

const KEY = "svc_live_abcdefghijklmnopqrstuvwxyz012345_0a1b2c3d";

describe("resolveApiKey", () => {
  it("prefers SVC_API_KEY over the stored key and trims it", () => {
    expect(resolveApiKey({ env: ` ${KEY}\n`, stored: "svc_live_other", origin: "o" })).toEqual({
      value: KEY,
      source: "env",
    });
    expect(resolveApiKey({ env: "", stored: KEY, origin: "o" })).toEqual({
      value: KEY,
      source: "config",
    });
  });

  it("no key: no_api_key, exit 3", () => {
    try {
      resolveApiKey({ origin: "https://svc.example" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SvcError);
      expect((err as SvcError).code).toBe("no_api_key");
      expect((err as SvcError).exitCode).toBe(3);
      expect((err as SvcError).message).toContain("https://svc.example");
    }
  });

  it("a license key as API key: exit 2 with a hint to legacy get", () => {
    try {
      resolveApiKey({ env: "SVC_ABCDEF123456", origin: "o" });
      expect.unreachable();
    } catch (err) {
      expect((err as SvcError).exitCode).toBe(2);
      expect((err as SvcError).hint).toContain("legacy get");
    }
  });
});

describe("keyPreview and isLicenseKey", () => {
  it("never shows more than 12 characters or a third of the key", () => {
    expect(keyPreview({ value: KEY })).toBe(`${KEY.slice(0, 12)}…`);
    expect(keyPreview({ value: "abcdef" })).toBe("ab…");
    expect(keyPreview({ value: "" })).toBe("…");
  });

  it("a stored key shows the service's preview recorded at login, when it fits the key", () => {
    expect(storedKeyPreview(KEY, KEY.slice(0, 13))).toBe(`${KEY.slice(0, 13)}…`);
    expect(storedKeyPreview(KEY, `${KEY.slice(0, 13)}…`)).toBe(`${KEY.slice(0, 13)}…`);
    // none recorded (a key stored by an older version), not a prefix, or too long: the short prefix
    for (const preview of [undefined, "", "svc_live_zzzz", KEY, KEY.slice(0, 30)]) {
      expect(storedKeyPreview(KEY, preview)).toBe(`${KEY.slice(0, 12)}…`);
    }
  });

  it("recognises license keys", () => {
    expect(isLicenseKey("SVC_123")).toBe(true);
    expect(isLicenseKey(KEY)).toBe(false);
  });
});

describe("withKeySource", () => {
  const refused = new ApiError({
    code: "invalid_api_key",
    message: "Invalid API key",
    httpStatus: 401,
    requestId: "req_12345678",
  });

  it("names SVC_API_KEY and says to fix or unset it", () => {
    const err = withKeySource(refused, { source: "env", origin: "https://svc.example" });
    expect(err.message).toBe("the API key from SVC_API_KEY was refused: Invalid API key");
    expect(err.hint).toMatch(
      /^Set SVC_API_KEY to a valid key .*or unset it and run `svc-dl auth login`\.$/,
    );
    expect([err.code, err.httpStatus, err.requestId, err.exitCode]).toEqual([
      "invalid_api_key",
      401,
      "req_12345678",
      3,
    ]);
  });

  it("names the config file and its origin and says to log in again", () => {
    const err = withKeySource(refused, { source: "config", origin: "https://svc.example" });
    expect(err.message).toBe(
      "the API key stored in the config file for https://svc.example was refused: Invalid API key",
    );
    expect(err.hint).toMatch(/^Run `svc-dl auth login` with a valid key/);
    expect(err.hint).not.toContain("SVC_API_KEY");
  });

  it("leaves errors that are not about the key alone", () => {
    const other = new ApiError({
      code: "not_entitled",
      message: "no",
      httpStatus: 403,
      requestId: null,
    });
    expect(withKeySource(other, { source: "env", origin: "o" })).toBe(other);
  });
});
