import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { runCli } from "../helpers/cli.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.set({ faults: {} });
  mock.resetLimits();
  mock.clearLog();
});

const env = () => ({ SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey });

describe("--verbose", () => {
  it("prints one stderr line per HTTP exchange: method, URL, status, request id, ms, budget", async () => {
    const r = await runCli(["--verbose", "api", "me"], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("GET "));
    expect(lines).toHaveLength(1);
    const id = mock.requests[0]?.requestId ?? "";
    expect(lines[0]).toMatch(
      new RegExp(`^GET ${mock.baseUrl}/api/v1/me 200 request-id=${id} \\d+ms read-remaining=\\d+$`),
    );
    // stdout stays pure data
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    // never a credential
    expect(r.stderr).not.toContain("Bearer");
    expect(r.stderr).not.toContain(mock.apiKey);
  });

  it("one line per try on retries, and per page", async () => {
    mock.set({ faults: { serverError: { count: 1, status: 503 } } });
    const r = await runCli(["-v", "api", "orders?limit=1", "--paginate"], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("GET "));
    expect(lines).toHaveLength(mock.requests.length);
    expect(lines[0]).toMatch(/ 503 request-id=/);
    expect(lines.slice(1).every((l) => / 200 request-id=/.test(l))).toBe(true);
  });

  it("connection failures are logged with ERR", async () => {
    const r = await runCli(["--verbose", "api", "me"], {
      env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_API_KEY: mock.apiKey },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:1\/api\/v1\/me ERR request-id=/m);
  });

  it("without --verbose there are no exchange lines", async () => {
    const r = await runCli(["api", "me"], { env: env() });
    expect(r.stderr).toBe("");
  });
});
