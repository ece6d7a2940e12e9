import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { useMockService } from "../../helpers/mock.js";

const shared = useMockService({ extraPacks: 3 });

const env = shared.env;

describe("svc-dl api PATH", () => {
  it("GETs {base_url}/api/v1/PATH with the key and prints the JSON body", async () => {
    const r = await runCli(["api", "me"], { env: env() });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { data: { account: { id: string } } };
    expect(body.data.account.id).toBe("usr_demo");
    expect(shared.mock.requests).toHaveLength(1);
    expect(shared.mock.requests[0]?.url).toBe("/api/v1/me");
    expect(shared.mock.requests[0]?.method).toBe("GET");
    expect(shared.mock.requests[0]?.headers.authorization).toBe(`Bearer ${shared.mock.apiKey}`);
    expect(shared.mock.requests[0]?.headers["user-agent"]).toMatch(/^svc-dl\/\d+\.\d+\.\d+/);
  });

  it("tolerates a leading / and an api/v1/ prefix, and keeps the query string", async () => {
    for (const path of ["/orders?limit=2", "api/v1/orders?limit=2", "/api/v1/orders?limit=2"]) {
      shared.mock.clearLog();
      const r = await runCli(["api", path], { env: env() });
      expect(r.code, path).toBe(0);
      expect(shared.mock.requests[0]?.url).toBe("/api/v1/orders?limit=2");
      const body = JSON.parse(r.stdout) as { data: unknown[]; pagination: { limit: number } };
      expect(body.data.length).toBeLessThanOrEqual(2);
      expect(body.pagination.limit).toBe(2);
    }
  });

  it("--paginate follows next_cursor and prints one merged data array", async () => {
    const all = await runCli(["api", "packs?limit=100"], { env: env() });
    const expected = (JSON.parse(all.stdout) as { data: { slug: string }[] }).data;
    shared.mock.clearLog();
    const r = await runCli(["api", "packs?limit=2", "--paginate"], { env: env() });
    expect(r.code).toBe(0);
    const merged = JSON.parse(r.stdout) as { slug: string }[];
    expect(Array.isArray(merged)).toBe(true);
    expect(merged.map((p) => p.slug)).toEqual(expected.map((p) => p.slug));
    expect(shared.mock.requests).toHaveLength(Math.ceil(expected.length / 2));
    for (const q of shared.mock.requests) expect(q.url).toContain("limit=2");
    expect(shared.mock.requests[1]?.url).toContain("cursor=");
  });

  it("--paginate on a route that is not a list prints its body whole", async () => {
    const r = await runCli(["api", "me", "--paginate"], { env: env() });
    expect(r.code).toBe(0);
    expect(shared.mock.requests).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toHaveProperty("data.account.id", "usr_demo");
  });

  it("--paginate stops on a pagination that never ends (exit 7)", async () => {
    shared.mock.set({ faults: { paginationLoop: true } });
    const r = await runCli(["api", "packs?limit=2", "--paginate"], { env: env() });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("broken_pagination");
    expect(shared.mock.requests.length).toBeLessThan(10);
  });

  it("catalog routes: the key is sent when configured, none is needed otherwise", async () => {
    const keyed = await runCli(["api", "catalog/packs"], { env: env() });
    expect(keyed.code).toBe(0);
    expect(shared.mock.requests[0]?.headers.authorization).toBe(`Bearer ${shared.mock.apiKey}`);
    shared.mock.clearLog();
    const open = await runCli(["api", "catalog/packs"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl },
    });
    expect(open.code).toBe(0);
    expect(JSON.parse(open.stdout)).toHaveProperty("data");
    expect(shared.mock.requests[0]?.headers.authorization).toBeUndefined();
    expect(shared.mock.requests[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("other routes need a key: exit 3 no_api_key and no request", async () => {
    const r = await runCli(["api", "orders"], { env: { SVC_BASE_URL: shared.mock.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no_api_key");
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("refuses paths that leave /api/v1 or name another service (exit 2, no request)", async () => {
    for (const path of [
      "../download",
      "%2e%2e/%2e%2e/x",
      "https://evil.example/api/v1/me",
      "",
      "/",
      // another API version or root: never sent as /api/v1/api/v2/x
      "/api/v2/x",
      "api/v2/me",
      "v2/me",
      "/api",
      "api?x=1",
    ]) {
      const r = await runCli(["api", path], { env: env() });
      expect(r.code, path).toBe(2);
      expect(r.stderr).toContain("invalid_api_path");
    }
    expect(shared.mock.requests).toHaveLength(0);
  });

  it("a full URL under the service's /api/v1 is accepted", async () => {
    const r = await runCli(["api", `${shared.mock.baseUrl}/api/v1/me`], { env: env() });
    expect(r.code).toBe(0);
    expect(shared.mock.requests[0]?.url).toBe("/api/v1/me");
  });

  it("has the same retries as every command", async () => {
    shared.mock.set({ faults: { serverError: { count: 1, status: 503 } } });
    const r = await runCli(["api", "assets"], { env: env() });
    expect(r.code).toBe(0);
    expect(shared.mock.requests.map((q) => q.status)).toEqual([503, 200]);
  });
});
