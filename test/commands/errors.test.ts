import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { hintFor } from "../../src/errors/format.js";
import { HttpClient } from "../../src/http/client.js";
import { runCli } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";

const shared = useMockService();

function key(id: string): string {
  const k = shared.mock.keys[id];
  if (k === undefined) throw new Error(`fixture has no ${id}`);
  return k;
}

/** The request id the shared.mock answered last with. */
function lastRequestId(): string {
  const last = shared.mock.requests.at(-1);
  if (!last) throw new Error("no request reached the mock");
  return last.requestId;
}

interface Case {
  code: string;
  exit: number;
  keyId: string;
  path: string;
  /** A phrase of the hint: what to do next. */
  next: RegExp;
}

const cases: Case[] = [
  {
    code: "invalid_api_key",
    exit: 3,
    keyId: "",
    path: "me",
    // the key came from SVC_API_KEY: the hint says to fix that one (the thrower knows its source)
    next: /Set SVC_API_KEY to a valid key \(create one under Account › Connections/,
  },
  {
    code: "revoked_api_key",
    exit: 3,
    keyId: "key_revoked",
    path: "me",
    next: /Set SVC_API_KEY to a valid key \(create one under Account › Connections/,
  },
  {
    code: "expired_api_key",
    exit: 3,
    keyId: "key_expired",
    path: "me",
    next: /Set SVC_API_KEY to a valid key \(create one under Account › Connections/,
  },
  {
    code: "api_disabled",
    exit: 4,
    keyId: "key_api_disabled",
    path: "me",
    next: /switched off/,
  },
  {
    code: "not_eligible",
    exit: 4,
    keyId: "key_not_eligible",
    path: "me",
    next: /needs a purchase/,
  },
  {
    code: "blocked",
    exit: 4,
    keyId: "key_blocked",
    path: "me",
    next: /contact support and quote the request id/,
  },
  {
    code: "insufficient_scope",
    exit: 4,
    keyId: "key_catalog_only",
    path: "packs/low-poly-forest/download",
    next: /downloads:read.*Scopes cannot be edited/,
  },
  {
    code: "not_entitled",
    exit: 4,
    keyId: "key_demo",
    path: "packs/space-station/download",
    next: /not among the account's purchases/,
  },
  {
    code: "not_found",
    exit: 5,
    keyId: "key_demo",
    path: "packs/cyberpunk-city/download",
    next: /Nothing at that path/,
  },
  {
    code: "file_unavailable",
    exit: 5,
    keyId: "key_demo",
    path: "packs/sci-fi-props/download?edition=authoring",
    next: /file is not available/,
  },
];

describe("every spec error code maps to its exit code, message and request id", () => {
  for (const c of cases) {
    it(`${c.code} → exit ${c.exit}`, async () => {
      const apiKey = c.keyId === "" ? "svc_live_not_a_real_key_at_all_0000000000" : key(c.keyId);
      const r = await runCli(["api", c.path], {
        env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: apiKey },
      });
      expect(r.code).toBe(c.exit);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`code ${c.code}`);
      expect(r.stderr).toContain(`request id ${lastRequestId()}`);
      expect(r.stderr).toMatch(c.next);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace without --verbose
      // 401/403/404 are never retried: exactly one request
      expect(shared.mock.requests.filter((q) => q.origin === "api")).toHaveLength(1);
    });
  }

  it("blocked says nothing more than the service did", async () => {
    const r = await runCli(["api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_blocked") },
    });
    expect(r.stderr).toContain("Access denied");
    expect(r.stderr).toContain("HTTP 403");
  });

  it("rate_limited → exit 6 once the wait budget is spent, saying when to retry", async () => {
    shared.mock.set({ faults: { rateLimited: { count: 5, retryAfter: 5 } } });
    const r = await runCli(["--max-wait", "1", "api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("code rate_limited");
    expect(r.stderr).toContain(`request id ${lastRequestId()}`);
    expect(r.stderr).toMatch(/Retry after \d{4}-\d\d-\d\dT[\d:.]+Z \(in 5s\)/);
  });

  it("internal_error → exit 7 after 5 tries", async () => {
    shared.mock.set({ faults: { serverError: { count: 10 } } });
    const r = await runCli(["api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("code internal_error");
    expect(r.stderr).toContain("HTTP 500");
    expect(r.stderr).toContain(`request id ${lastRequestId()}`);
    expect(shared.mock.requests).toHaveLength(5);
  });

  it("missing_api_key (a request sent without a key) → ApiError exit 3", async () => {
    const client = new HttpClient({
      baseUrl: new URL(shared.mock.baseUrl),
      apiKey: () => "unused",
      userAgent: "svc-dl/test",
    });
    try {
      const z = await import("../../src/io/schema.js");
      const err = await client
        .getJson(client.apiUrl("me"), z.unknown(), { authenticate: false })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(ApiError);
      const apiErr = err as ApiError;
      expect(apiErr.code).toBe("missing_api_key");
      expect(apiErr.exitCode).toBe(3);
      expect(apiErr.requestId).toBe(lastRequestId());
      expect(hintFor(apiErr)).toMatch(/auth login/);
    } finally {
      await client.close();
    }
  });

  it("--json errors are one line of JSON on stderr", async () => {
    const r = await runCli(["--json", "api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_revoked") },
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0] ?? "") as { error: Record<string, unknown> };
    expect(Object.keys(doc.error).sort()).toEqual(
      ["code", "hint", "http_status", "message", "request_id", "retryable"].sort(),
    );
    expect(doc.error.code).toBe("revoked_api_key");
    expect(doc.error.http_status).toBe(401);
    expect(doc.error.request_id).toBe(lastRequestId());
  });

  it("--json error without a response has null status and request id", async () => {
    const r = await runCli(["--json", "api", "me"], {
      env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    const doc = JSON.parse(r.stderr.trim()) as { error: Record<string, unknown> };
    expect(doc.error.code).toBe("network_error");
    expect(doc.error.http_status).toBeNull();
    expect(doc.error.request_id).toBeNull();
  }, 30_000);
});

describe("responses that break the spec → exit 7, status and request id, no stack", () => {
  it("an HTML error page", async () => {
    shared.mock.set({ faults: { htmlErrorPage: { count: 10, status: 403 } } });
    const r = await runCli(["api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("code unexpected_response");
    expect(r.stderr).toContain("HTTP 403");
    expect(r.stderr).toContain("text/html");
    expect(r.stderr).toContain(`request id ${lastRequestId()}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("an HTML 502 page is retried, then exit 7", async () => {
    shared.mock.set({ faults: { htmlErrorPage: { count: 10, status: 502 } } });
    const r = await runCli(["api", "me"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("HTTP 502");
    expect(r.stderr).toContain(`request id ${lastRequestId()}`);
    expect(shared.mock.requests).toHaveLength(5);
  });

  it("invalid JSON in a 200", async () => {
    shared.mock.set({ faults: { malformedJson: { count: 10 } } });
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("code unexpected_response");
    expect(r.stderr).toContain("HTTP 200");
    expect(r.stderr).toContain(`request id ${lastRequestId()}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a stack trace appears only with --verbose", async () => {
    shared.mock.set({ faults: { malformedJson: { count: 10 } } });
    const r = await runCli(["--verbose", "whoami"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: key("key_demo") },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/\n\s+at /);
  });
});
