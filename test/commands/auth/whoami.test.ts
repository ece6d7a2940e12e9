import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../../src/mock-server/index.js";
import type { MockService } from "../../../src/mock-server/types.js";
import { runCli } from "../../helpers/cli.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true });
});
afterAll(async () => {
  await mock.close();
});

describe("svc-dl whoami", () => {
  it("prints the account and the key's preview, never the full key", async () => {
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
    });
    expect(r.code).toBe(0);
    const meEntry = mock.requests.find((e) => e.url === "/api/v1/me");
    expect(meEntry?.headers.authorization).toBe(`Bearer ${mock.apiKey}`);
    expect(meEntry?.headers["user-agent"]).toMatch(/^svc-dl\/\d+\.\d+\.\d+/);
    expect(meEntry?.headers["x-request-id"]).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(r.stdout).toContain("Logged in to");
    expect(r.stdout).toMatch(/usr_/);
    expect(r.stdout).toContain(mock.apiKey.slice(0, 12));
    expect(r.stdout).not.toContain(mock.apiKey);
  });

  it("--json prints the response's data object unchanged", async () => {
    const r = await runCli(["whoami", "--json"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(doc).sort()).toEqual(["account", "entitlements", "key"]);
    expect(r.stderr).toBe("");
  });

  it("with a wrong key exits 3 and prints invalid_api_key and the request id", async () => {
    const wrong = `svc_live_${"A".repeat(32)}_00000000`;
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: wrong },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("invalid_api_key");
    const entry = mock.requests.filter((e) => e.url === "/api/v1/me").at(-1);
    expect(entry?.requestId).toBeTruthy();
    expect(r.stderr).toContain(`request id ${entry?.requestId}`);
    expect(r.stderr).not.toContain(wrong);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("--json error is one line of JSON on stderr with the contract's fields", async () => {
    const r = await runCli(["whoami", "--json"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: `svc_live_${"B".repeat(32)}_00000000` },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0] ?? "") as { error: Record<string, unknown> };
    expect(doc.error.code).toBe("invalid_api_key");
    expect(doc.error.http_status).toBe(401);
    expect(typeof doc.error.request_id).toBe("string");
    expect(typeof doc.error.message).toBe("string");
  });

  it("no base URL anywhere: exit 2 naming all three ways to set it, no request", async () => {
    const r = await runCli(["whoami"], { env: { SVC_API_KEY: mock.apiKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--base-url");
    expect(r.stderr).toContain("SVC_BASE_URL");
    expect(r.stderr).toContain("config set base-url");
  });

  it("no API key: exit 3 with no_api_key", async () => {
    const r = await runCli(["whoami"], { env: { SVC_BASE_URL: mock.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no_api_key");
  });
});
