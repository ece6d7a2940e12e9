import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { NetworkError } from "../../src/errors/network-error.js";
import { ResponseError } from "../../src/errors/response-error.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { HttpClient, MAX_REDIRECTS } from "../../src/http/client.js";
import * as z from "../../src/io/schema.js";
import type { Clock } from "../../src/model.js";

const API = "https://svc.example";
const CDN = "https://cdn.example";
const KEY = "svc_live_abcdefghijklmnopqrstuvwxyz012345_00000000";

let agent: MockAgent;
let sleeps: number[];
let now: number;
let exchanges: string[];
let notices: string[];

/** A clock that never sleeps for real: it records the wait and moves time on. */
const clock: Clock = {
  now: () => now,
  sleep: async (ms) => {
    sleeps.push(ms);
    now += ms;
  },
};

function client(over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  return new HttpClient({
    baseUrl: new URL(API),
    apiKey: () => KEY,
    userAgent: "svc-dl/test",
    dispatcher: agent,
    clock,
    retry: { random: () => 0.5 },
    onExchange: (line) => exchanges.push(line),
    onNotice: (line) => notices.push(line),
    ...over,
  });
}

const json = { "content-type": "application/json" };
function errorBody(code: string, requestId = "req_12345678") {
  return JSON.stringify({ error: { code, message: `${code} happened`, request_id: requestId } });
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  sleeps = [];
  now = 1_000_000;
  exchanges = [];
  notices = [];
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

describe("HttpClient.send(): redirects", () => {
  it("sends the key only to the service origin, never to the CDN it redirects to", async () => {
    const seen: Record<string, unknown>[] = [];
    agent
      .get(API)
      .intercept({ path: "/api/v1/packs/p/download", method: "GET" })
      .reply((opts) => {
        seen.push({ ...(opts.headers as Record<string, string>) });
        return {
          statusCode: 302,
          data: "",
          responseOptions: { headers: { location: `${CDN}/f.zip?sig=s3cret` } },
        };
      });
    agent
      .get(CDN)
      .intercept({ path: "/f.zip?sig=s3cret", method: "GET" })
      .reply((opts) => {
        seen.push({ ...(opts.headers as Record<string, string>) });
        return { statusCode: 200, data: "PK" };
      });
    const c = client();
    const res = await c.send({ url: c.apiUrl("packs/p/download"), headers: { range: "bytes=5-" } });
    res.body.dump();
    expect(res.status).toBe(200);
    expect(res.url.origin).toBe(CDN);
    expect(seen[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[1]?.authorization).toBeUndefined();
    expect(seen[1]?.["x-api-key"]).toBeUndefined();
    expect(seen[1]?.range).toBe("bytes=5-"); // Range kept across redirects
    expect(seen[0]?.["x-request-id"]).toBe(seen[1]?.["x-request-id"]);
    // the CDN's signed query is redacted in the verbose lines, the API URL is not
    expect(exchanges[0]).toContain(`${API}/api/v1/packs/p/download 302`);
    expect(exchanges[1]).toContain(`${CDN}/f.zip?sig=… 200`);
    expect(exchanges.join("\n")).not.toContain("s3cret");
    expect(exchanges.join("\n")).not.toContain(KEY);
  });

  it("refuses an https → http redirect", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/x/download" })
      .reply(302, "", { headers: { location: "http://cdn.example/f.zip" } });
    const c = client();
    const err = await c.send({ url: c.apiUrl("x/download") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe("insecure_redirect");
    expect((err as NetworkError).exitCode).toBe(7);
  });

  it(`stops after ${MAX_REDIRECTS} hops`, async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/loop" })
      .reply(302, "", { headers: { location: `${API}/api/v1/loop` } })
      .times(MAX_REDIRECTS + 1);
    const c = client();
    const err = await c.send({ url: c.apiUrl("loop") }).catch((e: unknown) => e);
    expect((err as SvcError).code).toBe("too_many_redirects");
    expect(exchanges).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("never re-sends a POST body to the redirect target", async () => {
    const bodies: unknown[] = [];
    agent
      .get(API)
      .intercept({ path: "/api/download", method: "POST" })
      .reply((opts) => {
        bodies.push(opts.body);
        return {
          statusCode: 307,
          data: "",
          responseOptions: { headers: { location: `${CDN}/l.zip` } },
        };
      });
    agent
      .get(CDN)
      .intercept({ path: "/l.zip", method: "GET" })
      .reply((opts) => {
        bodies.push(opts.body ?? null);
        return { statusCode: 200, data: "PK" };
      });
    const c = client();
    const res = await c.send({
      method: "POST",
      url: c.serviceUrl("api/download"),
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ licenseKey: "SVC_secret", packSlug: "p" }),
      authenticate: false,
    });
    res.body.dump();
    expect(bodies[0]).toContain("SVC_secret");
    expect(bodies[1] ?? null).toBeNull();
  });
});

describe("HttpClient.getJson(): errors and retries", () => {
  it("turns the spec's error shape into ApiError with the contract's exit code", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/me" })
      .reply(401, errorBody("expired_api_key"), {
        headers: { ...json, "x-request-id": "req_12345678" },
      });
    const c = client();
    const err = await c.getJson(c.apiUrl("me"), z.unknown()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).exitCode).toBe(3);
    expect((err as ApiError).requestId).toBe("req_12345678");
    expect(sleeps).toEqual([]); // never retried
  });

  it("416 is never retried", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/a/download" })
      .reply(416, errorBody("range_not_satisfiable"), {
        headers: { ...json, "content-range": "bytes */10" },
      });
    const c = client();
    const err = await c.getJson(c.apiUrl("a/download"), z.unknown()).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe("range_not_satisfiable");
    expect(sleeps).toEqual([]);
  });

  it("retries 500 with full-jitter exponential backoff, 5 tries in all", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/me" })
      .reply(500, errorBody("internal_error"), { headers: json })
      .times(5);
    const c = client();
    const err = await c.getJson(c.apiUrl("me"), z.unknown()).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe("internal_error");
    expect((err as ApiError).exitCode).toBe(7);
    // random() = 0.5 → half of 500, 1000, 2000, 4000 ms
    expect(sleeps).toEqual([250, 500, 1000, 2000]);
  });

  it("a 429 waits Retry-After, then succeeds", async () => {
    const pool = agent.get(API);
    pool.intercept({ path: "/api/v1/me" }).reply(429, errorBody("rate_limited"), {
      headers: { ...json, "retry-after": "7" },
    });
    pool.intercept({ path: "/api/v1/me" }).reply(200, { data: { ok: true } }, { headers: json });
    const c = client();
    const { body } = await c.getJson(c.apiUrl("me"), z.unknown());
    expect(body).toEqual({ data: { ok: true } });
    expect(sleeps).toContain(7000);
  });

  it("a 429 past --max-wait is exit 6 with when to retry", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/me" })
      .reply(429, errorBody("rate_limited"), {
        headers: { ...json, "retry-after": "30" },
      });
    const c = client({ retry: { maxWaitSeconds: 10 } });
    const err = await c.getJson(c.apiUrl("me"), z.unknown()).catch((e: unknown) => e);
    expect((err as ApiError).exitCode).toBe(6);
    expect((err as ApiError).hint).toContain(new Date(now + 30_000).toISOString());
  });

  it("an HTML page, invalid JSON or a wrong shape is a ResponseError (exit 7)", async () => {
    const pool = agent.get(API);
    pool.intercept({ path: "/api/v1/a" }).reply(403, "<html><body>Forbidden</body></html>", {
      headers: { "content-type": "text/html", "x-request-id": "req_html_1" },
    });
    pool.intercept({ path: "/api/v1/b" }).reply(200, "{not json", { headers: json });
    pool.intercept({ path: "/api/v1/c" }).reply(200, { data: { account: 1 } }, { headers: json });
    const c = client();
    const schema = z.object({ data: z.object({ account: z.object({ id: z.string() }) }) });
    for (const path of ["a", "b", "c"]) {
      const err = await c.getJson(c.apiUrl(path), schema).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(ResponseError);
      expect((err as ResponseError).exitCode).toBe(7);
    }
    expect(sleeps).toEqual([]);
  });

  it("connection failures are retried, then exit 7", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/me" })
      .replyWithError(new Error("ECONNRESET"))
      .times(5);
    const c = client();
    const err = await c.getJson(c.apiUrl("me"), z.unknown()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(sleeps).toHaveLength(4);
  });
});

describe("HttpClient: pacing", () => {
  it("waits for the reset when the read budget is spent, and keeps budgets apart", async () => {
    const pool = agent.get(API);
    const spent = {
      ...json,
      ratelimit: '"read";r=0;t=3',
      "ratelimit-policy": '"read";q=3;w=60',
    };
    pool.intercept({ path: "/api/v1/me" }).reply(200, { data: 1 }, { headers: spent });
    pool.intercept({ path: "/api/v1/a/download" }).reply(200, "x", {
      headers: { "x-ratelimit-remaining": "5", "x-ratelimit-reset": "60" },
    });
    pool.intercept({ path: "/api/v1/me" }).reply(200, { data: 2 }, { headers: json });
    const c = client();
    await c.getJson(c.apiUrl("me"), z.unknown());
    const dl = await c.send({ url: c.apiUrl("a/download") });
    dl.body.dump();
    expect(sleeps).toEqual([]); // the download budget is not the read budget
    await c.getJson(c.apiUrl("me"), z.unknown());
    expect(sleeps).toEqual([3000]);
    expect(notices.some((n) => n.includes("read budget spent; waiting 3s"))).toBe(true);
    expect(exchanges[0]).toMatch(/read-remaining=0$/);
    expect(exchanges[1]).toMatch(/download-remaining=5$/);
  });

  it("a reset longer than --max-wait is exit 6 without a request", async () => {
    agent
      .get(API)
      .intercept({ path: "/api/v1/me" })
      .reply(
        200,
        { data: 1 },
        {
          headers: { ...json, "x-ratelimit-remaining": "0", "x-ratelimit-reset": "120" },
        },
      );
    const c = client({ retry: { maxWaitSeconds: 60 } });
    await c.getJson(c.apiUrl("me"), z.unknown());
    const err = await c.getJson(c.apiUrl("me"), z.unknown()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect((err as SvcError).exitCode).toBe(6);
    expect((err as SvcError).code).toBe("rate_limited");
  });
});
