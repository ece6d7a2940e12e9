import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseBaseUrl, resolveBaseUrl } from "../../src/config/base-url.js";
import { UsageError } from "../../src/errors/usage-error.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    return (err as UsageError).code;
  }
}

describe("parseBaseUrl", () => {
  it("accepts https anywhere and http only for loopback hosts", () => {
    expect(parseBaseUrl("https://assets.example.com/", "flag").href).toBe(
      "https://assets.example.com/",
    );
    expect(parseBaseUrl("http://localhost:8080", "env").host).toBe("localhost:8080");
    expect(parseBaseUrl("http://127.1.2.3:9", "config").hostname).toBe("127.1.2.3");
    expect(parseBaseUrl("http://[::1]:9", "config").hostname).toBe("[::1]");
    expect(codeOf(() => parseBaseUrl("http://assets.example.com", "flag"))).toBe(
      "insecure_base_url",
    );
    expect(codeOf(() => parseBaseUrl("http://10.0.0.1", "flag"))).toBe("insecure_base_url");
    expect(codeOf(() => parseBaseUrl("http://localhost.evil.com", "flag"))).toBe(
      "insecure_base_url",
    );
  });

  it("refuses other schemes, missing schemes, credentials, query, and an /api suffix", () => {
    expect(codeOf(() => parseBaseUrl("ftp://x.example", "flag"))).toBe("invalid_base_url");
    expect(codeOf(() => parseBaseUrl("assets.example.com", "flag"))).toBe("invalid_base_url");
    expect(codeOf(() => parseBaseUrl("https://u:p@x.example", "flag"))).toBe("invalid_base_url");
    expect(codeOf(() => parseBaseUrl("https://x.example/?a=1", "flag"))).toBe("invalid_base_url");
    expect(codeOf(() => parseBaseUrl("https://x.example/api/v1", "argument"))).toBe(
      "invalid_base_url",
    );
  });

  it("keeps a path prefix without a trailing slash", () => {
    expect(parseBaseUrl("https://x.example/shop/", "flag").pathname).toBe("/shop");
  });
});

describe("isLoopbackHost", () => {
  it("knows localhost, 127.0.0.0/8 and ::1", () => {
    for (const h of ["localhost", "LOCALHOST", "127.0.0.1", "127.255.0.9", "[::1]", "::1"]) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of [
      "128.0.0.1",
      "example.com",
      "::2",
      "0.0.0.0",
      "a.localhost",
      "localhost.evil",
    ]) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });
});

describe("resolveBaseUrl: flag > env > config", () => {
  it("takes the first source that is set", () => {
    const all = {
      flag: "https://f.example",
      env: "https://e.example",
      config: "https://c.example",
    };
    expect(resolveBaseUrl(all).source).toBe("flag");
    expect(resolveBaseUrl({ ...all, flag: undefined }).url.host).toBe("e.example");
    expect(resolveBaseUrl({ config: "https://c.example", env: " " }).source).toBe("config");
  });

  it("names all three ways when none is set", () => {
    try {
      resolveBaseUrl({});
      expect.unreachable();
    } catch (err) {
      const e = err as UsageError;
      expect(e.code).toBe("no_base_url");
      expect(e.exitCode).toBe(2);
      expect(e.hint).toContain("--base-url");
      expect(e.hint).toContain("SVC_BASE_URL");
      expect(e.hint).toContain("config set base-url");
    }
  });
});
