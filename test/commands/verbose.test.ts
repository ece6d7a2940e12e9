import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";
import { startRawServer } from "../helpers/raw-server.js";

const shared = useMockService();

const env = shared.env;

describe("--verbose", () => {
  it("prints one stderr line per HTTP exchange: method, URL, status, request id, ms, budget", async () => {
    const r = await runCli(["--verbose", "api", "me"], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("GET "));
    expect(lines).toHaveLength(1);
    const id = shared.mock.requests[0]?.requestId ?? "";
    expect(lines[0]).toMatch(
      new RegExp(
        `^GET ${shared.mock.baseUrl}/api/v1/me 200 request-id=${id} \\d+ms read-remaining=\\d+$`,
      ),
    );
    // stdout stays pure data
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    // never a credential
    expect(r.stderr).not.toContain("Bearer");
    expect(r.stderr).not.toContain(shared.mock.apiKey);
  });

  it("one line per try on retries, and per page", async () => {
    shared.mock.set({ faults: { serverError: { count: 1, status: 503 } } });
    const r = await runCli(["-v", "api", "orders?limit=1", "--paginate"], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("GET "));
    expect(lines).toHaveLength(shared.mock.requests.length);
    expect(lines[0]).toMatch(/ 503 request-id=/);
    expect(lines.slice(1).every((l) => / 200 request-id=/.test(l))).toBe(true);
  });

  it("connection failures are logged with ERR", async () => {
    const r = await runCli(["--verbose", "api", "me"], {
      env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_API_KEY: shared.mock.apiKey },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:1\/api\/v1\/me ERR request-id=/m);
  });

  it("without --verbose there are no exchange lines", async () => {
    const r = await runCli(["api", "me"], { env: env() });
    expect(r.stderr).toBe("");
  });

  it("never prints the key: not in a self-redirect's query, nor a fragment echoed in x-request-id", async () => {
    const key = "svc_live_V3rboseRedactKeyAbCdEf0123456789_0ddba11";
    const fragment = key.slice(12, 32);
    const s = await startRawServer((req, res) => {
      if (req.url === "/api/v1/me") {
        res.writeHead(302, { location: `/api/v1/me2?key=${key}&token=${key.slice(9)}` }).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "x-request-id": `req-${fragment}` });
      res.end('{"data":{}}');
    });
    try {
      const r = await runCli(["--verbose", "api", "me"], {
        env: { SVC_BASE_URL: s.url, SVC_API_KEY: key },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split("\n").filter((l) => l.startsWith("GET "))).toHaveLength(2);
      expect(r.stderr).not.toContain(key.slice(9, 25));
      expect(r.stderr).not.toContain(fragment.slice(0, 16));
      expect(r.stderr).toContain("key=…");
    } finally {
      await s.close();
    }
  });
});
