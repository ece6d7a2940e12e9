import { describe, expect, it } from "vitest";
import { maskUrlCredentials, Redactor, redactUrl } from "../../src/http/redact.js";

const SERVICE = "https://svc.example";

describe("redactUrl", () => {
  it("keeps service URLs whole (they never carry credentials)", () => {
    expect(redactUrl(new URL(`${SERVICE}/api/v1/packs?limit=100&cursor=c1`), SERVICE)).toBe(
      `${SERVICE}/api/v1/packs?limit=100&cursor=c1`,
    );
  });

  it("replaces every query value of other hosts by …", () => {
    const out = redactUrl(
      new URL("https://cdn.example/files/p.zip?expires=123&sig=abcdef&X-Amz-Signature=zz#frag"),
      SERVICE,
    );
    expect(out).toBe("https://cdn.example/files/p.zip?expires=…&sig=…&X-Amz-Signature=…");
  });

  it("drops user info everywhere", () => {
    expect(redactUrl(new URL("https://u:p@cdn.example/f"), SERVICE)).toBe("https://cdn.example/f");
    expect(redactUrl(new URL("https://u:p@svc.example/api/v1/me"), SERVICE)).toBe(
      "https://svc.example/api/v1/me",
    );
  });

  it("treats another port as another origin", () => {
    expect(redactUrl(new URL("https://svc.example:8443/x?token=t"), SERVICE)).toBe(
      "https://svc.example:8443/x?token=…",
    );
  });
});

describe("Redactor (one redactor for every printed URL and header)", () => {
  const KEY = "svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345_deadbeef";
  const LICENSE = "SVC_7F3A-19C2-88B0-4D1E-AA55";
  const r = new Redactor(SERVICE, [KEY, LICENSE]);

  it("scrubs the whole key, its body without the prefix, and any 16-character fragment", () => {
    expect(r.text(`Bearer ${KEY}`)).toBe("Bearer [API key]");
    expect(r.text(`id=${KEY.slice(9)}`)).toBe("id=[API key]");
    const fragment = KEY.slice(12, 28);
    expect(fragment).toHaveLength(16);
    expect(r.text(`x-request-id: req-${fragment}-1`)).toBe("x-request-id: req-[API key]-1");
    expect(r.text(`short ${KEY.slice(12, 27)} stays`)).toBe(`short ${KEY.slice(12, 27)} stays`);
  });

  it("scrubs the license key with or without its SVC_ prefix", () => {
    expect(r.text(`key ${LICENSE}`)).toBe("key [license key]");
    expect(r.text(`id ${LICENSE.slice(4)}`)).toBe("id [license key]");
  });

  it("hides credential-like query values on every host, the service's too", () => {
    expect(r.url(`${SERVICE}/api/v1/me?key=abc&limit=5&token=t&sig=s&signature=x`)).toBe(
      `${SERVICE}/api/v1/me?key=…&limit=5&token=…&sig=…&signature=…`,
    );
    expect(r.url(`${SERVICE}/api/v1/me?next=${encodeURIComponent(KEY)}`)).not.toContain(
      KEY.slice(9, 25),
    );
  });
});

describe("maskUrlCredentials", () => {
  it("shows a proxy password as *** and keeps the rest as given", () => {
    expect(maskUrlCredentials("http://bob:s3cret@proxy.example:3128")).toBe(
      "http://bob:***@proxy.example:3128",
    );
    expect(maskUrlCredentials("https://bob:p@ss:w0rd@proxy.example/x?y")).toBe(
      "https://bob:***@proxy.example/x?y",
    );
    expect(maskUrlCredentials("http://:only-pass@proxy.example")).toBe("http://:***@proxy.example");
  });

  it("hides a user name given without a password (a token) as ***", () => {
    expect(maskUrlCredentials("http://ghp_TOKEN1234567890@proxy.example:3128")).toBe(
      "http://***@proxy.example:3128",
    );
    expect(maskUrlCredentials("https://tok%40en@proxy.example/")).toBe(
      "https://***@proxy.example/",
    );
    expect(maskUrlCredentials("http://@proxy.example")).toBe("http://@proxy.example");
  });

  it("leaves a URL without credentials alone, and masks one that is not a valid URL", () => {
    expect(maskUrlCredentials("http://proxy.example:3128")).toBe("http://proxy.example:3128");
    expect(maskUrlCredentials("http://proxy.example/a@b")).toBe("http://proxy.example/a@b");
    expect(maskUrlCredentials("http://bob:pw@[bad")).toBe("http://bob:***@[bad");
  });
});
