import { describe, expect, it } from "vitest";
import { isLicenseKey, keyPreview, resolveApiKey } from "../../../src/config/api-key.js";
import { SvcError } from "../../../src/errors/svc-error.js";

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
    expect(keyPreview(KEY)).toBe(`${KEY.slice(0, 12)}…`);
    expect(keyPreview("abcdef")).toBe("ab…");
    expect(keyPreview("")).toBe("…");
  });

  it("recognises license keys", () => {
    expect(isLicenseKey("SVC_123")).toBe(true);
    expect(isLicenseKey(KEY)).toBe(false);
  });
});
