import { describe, expect, it } from "vitest";
import { redactUrl } from "../../../src/http/redact.js";

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
