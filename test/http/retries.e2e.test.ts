import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService();

const env = shared.env;

describe("5xx and connection failures: up to 5 tries with backoff", () => {
  for (const status of [500, 502, 503, 504] as const) {
    it(`recovers from two ${status}s`, async () => {
      shared.mock.set({ faults: { serverError: { count: 2, status } } });
      const r = await runCli(["whoami"], { env: env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Demo Artist");
      expect(shared.mock.requests.map((q) => q.status)).toEqual([status, status, 200]);
      expect(r.stderr).toMatch(/retry 1\/4/);
      // every try carries the same request id header shape and the key
      for (const q of shared.mock.requests)
        expect(q.headers["x-request-id"]).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    });
  }

  it("gives up after 5 tries with exit 7", async () => {
    shared.mock.set({ faults: { serverError: { count: 5, status: 503 } } });
    const r = await runCli(["whoami"], { env: env() });
    expect(r.code).toBe(7);
    expect(shared.mock.requests).toHaveLength(5);
  });

  it("retries connection failures, then exit 7 with network_error", async () => {
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_API_KEY: shared.mock.apiKey },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("code network_error");
    expect(r.stderr.match(/retry \d\/4/g)).toHaveLength(4);
  });

  it("--quiet hides the retry notes but not the error", async () => {
    shared.mock.set({ faults: { serverError: { count: 1 } } });
    const r = await runCli(["--quiet", "whoami"], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });
});

describe("429: wait Retry-After within --max-wait", () => {
  it("waits Retry-After and succeeds", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 1 } } });
    const r = await runCli(["whoami"], { env: env() });
    expect(r.code).toBe(0);
    expect(shared.mock.requests.map((q) => q.status)).toEqual([429, 200]);
    expect(r.stderr).toContain("waiting 1s as Retry-After asks");
  });

  it("--max-wait 1 with Retry-After 5: exit 6 at once, saying when to retry", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 1, retryAfter: 5 } } });
    const r = await runCli(["--max-wait", "1", "whoami"], { env: env() });
    expect(r.code).toBe(6);
    expect(shared.mock.requests).toHaveLength(1);
    expect(r.stderr).toContain("code rate_limited");
    expect(r.stderr).toMatch(/Retry after .*\(in 5s\)/);
  });

  it("the wait budget is a total: two waits of 1 s fit in --max-wait 2, the third does not", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 3, retryAfter: 1 } } });
    const r = await runCli(["--max-wait", "2", "whoami"], { env: env() });
    expect(r.code).toBe(6);
    expect(shared.mock.requests.map((q) => q.status)).toEqual([429, 429, 429]);
  });
});

describe("401/403/404 are never retried", () => {
  const cases: [string, string, string][] = [
    ["401", "key_revoked", "me"],
    ["403", "key_blocked", "me"],
    ["403 not_entitled", "key_demo", "packs/space-station/download"],
    ["404", "key_demo", "packs/no-such-pack/download"],
  ];
  for (const [label, keyId, path] of cases) {
    it(`${label}: exactly one request`, async () => {
      const r = await runCli(["api", path], {
        env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: shared.mock.keys[keyId] },
      });
      expect([3, 4, 5]).toContain(r.code);
      expect(shared.mock.requests).toHaveLength(1);
    });
  }
});
