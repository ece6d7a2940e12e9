import { describe, expect, it } from "vitest";
import { noProxyMatcher } from "../../src/http/no-proxy.js";
import { proxyFor } from "../../src/http/proxy-route.js";

/** NO_PROXY as curl reads it, and which proxy each origin goes through (cli-contract "Networks"). */

const direct = (noProxy: string, url: string): boolean => noProxyMatcher(noProxy)(new URL(url));

describe("NO_PROXY", () => {
  it.each([
    ["127.0.0.0/8", "http://127.1.2.3:8080/", true],
    ["127.0.0.0/8", "https://128.0.0.1/", false],
    ["10.0.0.0/8, 192.168.0.0/16", "https://192.168.4.5/", true],
    ["::1", "http://[::1]:9000/", true],
    ["[::1]", "http://[::1]:9000/", true],
    ["0:0:0:0:0:0:0:1", "http://[::1]/", true],
    ["::1", "http://127.0.0.1/", false],
    ["fd00::/8", "https://[fd12:3456::1]/", true],
    ["fd00::/8", "https://[fe80::1]/", false],
    ["[fd00::]/8", "https://[fd12::1]/", true],
    ["127.0.0.1", "https://127.0.0.1:8443/", true],
    ["127.0.0.1:8443", "https://127.0.0.1:8443/", true],
    ["127.0.0.1:8443", "https://127.0.0.1:9443/", false],
    ["[::1]:8443", "https://[::1]:8443/", true],
    ["[::1]:8443", "https://[::1]:443/", false],
    ["example.com", "https://cdn.example.com/", true],
    [".example.com", "https://example.com/", true],
    ["*.example.com", "https://a.b.example.com/", true],
    ["example.com", "https://notexample.com/", false],
    ["example.com:443", "https://example.com/", true],
    ["example.com:8443", "https://example.com/", false],
    ["*", "https://anything.example/", true],
    ["", "https://anything.example/", false],
    ["127.0.0.0/40, not a/valid entry", "https://127.0.0.1/", false],
  ])("%j, %s → direct: %s", (noProxy, url, expected) => {
    expect(direct(noProxy, url)).toBe(expected);
  });
});

describe("proxyFor", () => {
  const remote = { httpProxy: "http://proxy.corp:3128", httpsProxy: "http://proxy.corp:3128" };

  it("https goes through the proxy (a CONNECT tunnel), wherever it is", () => {
    expect(proxyFor({ ...remote, noProxy: "" }, new URL("https://api.example.com/"))).toBe(
      "http://proxy.corp:3128",
    );
  });

  it("plain http never goes through a proxy that is not on loopback", () => {
    expect(proxyFor({ ...remote, noProxy: "" }, new URL("http://127.0.0.1:8080/"))).toBe(undefined);
    expect(
      proxyFor(
        { httpProxy: "https://10.0.0.1:3128", httpsProxy: "", noProxy: "" },
        new URL("http://localhost:8080/"),
      ),
    ).toBe(undefined);
  });

  it.each(["http://127.0.0.1:3128", "http://localhost:3128", "http://[::1]:3128"])(
    "plain http still goes through the loopback proxy %s",
    (proxy) => {
      expect(
        proxyFor({ httpProxy: proxy, httpsProxy: "", noProxy: "" }, new URL("http://127.0.0.1/")),
      ).toBe(proxy);
    },
  );

  it("NO_PROXY wins over every proxy", () => {
    expect(
      proxyFor({ ...remote, noProxy: "api.example.com" }, new URL("https://api.example.com/")),
    ).toBe(undefined);
  });
});
