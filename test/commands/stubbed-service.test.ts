import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPacksList } from "../../src/commands/packs/list.run.js";
import { DEFAULT_GLOBALS, Session } from "../../src/session.js";
import { runCli } from "../helpers/cli.js";
import { testContext } from "../helpers/context.js";

/**
 * Commands in-process against a registry of stubs (an undici MockAgent with net connect
 * disabled), not the mock service: each case says exactly which requests it expects, any
 * other request fails, and a stub left unused fails the test (conventions "Context injection").
 */

const ORIGIN = "https://assets.example.test";
const KEY = `svc_live_${"S".repeat(32)}_00000000`;
const ENV = { SVC_BASE_URL: ORIGIN, SVC_API_KEY: KEY };
const JSON_HEADERS = { "content-type": "application/json", "x-request-id": "req_stub_1" };

const ME = {
  account: { id: "usr_stub", email: "stub@example.com", name: "Stub Artist" },
  entitlements: {
    lifetime: true,
    owned_product_slugs: ["forest-pack"],
    pack_count: 1,
    asset_count: 3,
  },
  key: {
    id: "key_stub",
    name: "ci runner",
    preview: "svc_live_SSSS",
    scopes: ["catalog:read", "downloads:read"],
    created_at: "2025-03-01T09:00:00.000Z",
    last_used_at: null,
    expires_at: null,
  },
};

function pack(slug: string) {
  return {
    slug,
    name: slug,
    description: "",
    asset_count: 2,
    categories: ["nature"],
    purchased_at: "2025-01-02T03:04:05.000Z",
    order_id: "ord_1",
    editions: ["standard"],
    downloads: {
      bundle: `${ORIGIN}/api/v1/packs/${slug}/download`,
      authoring: `${ORIGIN}/api/v1/packs/${slug}/download?edition=authoring`,
    },
  };
}

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

/** The stub registry of the service origin. */
const service = () => agent.get(ORIGIN);

describe("commands against stubbed responses", () => {
  it("whoami sends the key only as a Bearer token and prints the account", async () => {
    service()
      .intercept({ path: "/api/v1/me", headers: { authorization: `Bearer ${KEY}` } })
      .reply(200, { data: ME }, { headers: JSON_HEADERS });
    const r = await runCli(["whoami"], { env: ENV, dispatcher: agent });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Stub Artist <stub@example.com> (usr_stub)");
    expect(r.stdout).toContain("lifetime access: yes");
  });

  it("packs list --json follows next_cursor and merges the pages in order", async () => {
    service()
      .intercept({ path: "/api/v1/packs?limit=100" })
      .reply(
        200,
        {
          data: [pack("a-pack")],
          pagination: { limit: 100, offset: 0, total: 2, has_more: true, next_cursor: "c2" },
        },
        { headers: JSON_HEADERS },
      );
    service()
      .intercept({ path: "/api/v1/packs?limit=100&cursor=c2&offset=1" })
      .reply(
        200,
        {
          data: [pack("b-pack")],
          pagination: { limit: 100, offset: 1, total: 2, has_more: false, next_cursor: null },
        },
        { headers: JSON_HEADERS },
      );
    const r = await runCli(["packs", "list", "--json"], { env: ENV, dispatcher: agent });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { slug: string }[]).map((p) => p.slug)).toEqual([
      "a-pack",
      "b-pack",
    ]);
  });

  it("auth status --json names the origin and the key's source", async () => {
    service().intercept({ path: "/api/v1/me" }).reply(200, { data: ME }, { headers: JSON_HEADERS });
    const r = await runCli(["auth", "status", "--json"], { env: ENV, dispatcher: agent });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { origin: string; source: string };
    expect(doc).toMatchObject({ origin: ORIGIN, source: "env" });
    expect(r.stdout).not.toContain(KEY);
  });

  it("a 503 is retried (waits on the instant clock) and the second answer is used", async () => {
    service()
      .intercept({ path: "/api/v1/me" })
      .reply(
        503,
        { error: { code: "service_unavailable", message: "down for a moment" } },
        { headers: { ...JSON_HEADERS, "retry-after": "2" } },
      );
    service().intercept({ path: "/api/v1/me" }).reply(200, { data: ME }, { headers: JSON_HEADERS });
    const r = await runCli(["api", "me"], { env: ENV, dispatcher: agent });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: ME });
    // the retry is said on stderr, with the service's code
    expect(r.stderr).toContain("service_unavailable");
  });

  it.each([
    [401, "invalid_api_key", "invalid_api_key", 3],
    [403, "api_disabled", "api_disabled", 4],
    // a 404 of a top-level route: the route is not under the base URL
    [404, "not_found", "route_not_found", 5],
  ])(
    "HTTP %i %s → %s, exit %i with the code and the request id",
    async (status, apiCode, code, exit) => {
      service()
        .intercept({ path: "/api/v1/me" })
        .reply(status, { error: { code: apiCode, message: "refused" } }, { headers: JSON_HEADERS });
      const r = await runCli(["whoami"], { env: ENV, dispatcher: agent });
      expect(r.code).toBe(exit);
      expect(r.stderr).toContain(`code ${code}`);
      expect(r.stderr).toContain("req_stub_1");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it("a command's run function works without main(): runPacksList(session, { limit })", async () => {
    service()
      .intercept({ path: "/api/v1/packs?limit=100" })
      .reply(
        200,
        {
          data: [pack("a-pack"), pack("b-pack")],
          pagination: { limit: 100, offset: 0, total: 3, has_more: true, next_cursor: "c2" },
        },
        { headers: JSON_HEADERS },
      );
    const { ctx, stdout, stderr } = testContext({ env: ENV, dispatcher: agent });
    const session = new Session(ctx, { ...DEFAULT_GLOBALS, json: true });
    try {
      await runPacksList(session, { limit: 2 });
    } finally {
      await session.close();
    }
    // --limit 2 is met by the first page: no second request (an unused stub would fail)
    expect((JSON.parse(stdout.text) as { slug: string }[]).map((p) => p.slug)).toEqual([
      "a-pack",
      "b-pack",
    ]);
    expect(stderr.text).toBe("");
  });
});
