/**
 * bad input from the user. Slugs, keys, base URLs and flag
 * combinations each get a clear error with the contract's exit code — and, where the input is
 * refused locally, no request at all; where it is passed on, the service's own 404. Nothing is
 * ever written outside the output directory, and no key is echoed.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { registerSecret } from "../helpers/cli.js";
import { envFor, finalFiles, listTree, run, tempDir } from "./helpers/harness.js";

/** Runs `fn` with a fresh small mock, closed afterwards. */
async function withMock<T>(fn: (mock: MockService) => Promise<T>): Promise<T> {
  const mock = await startMockService({ packSize: 32 * 1024, assetSize: 16 * 1024 });
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}

/** A root with `out/` in it; the CLI runs inside `out/`. */
function sandbox(): { root: string; out: string } {
  const root = tempDir("svc-dl-rel-input-");
  const out = join(root, "out");
  mkdirSync(out);
  return { root, out };
}

/** Nothing under `root` but `out/` and svc-dl's bookkeeping in it. */
function strayPaths(root: string): string[] {
  return listTree(root).filter((p) => p !== "out" && !p.startsWith("out/.svc-dl"));
}

describe("bad slugs", () => {
  const tenKb = "s".repeat(10 * 1024);
  const cases: { slug: string; label: string; exit: number; code: string }[] = [
    { slug: "", label: "empty", exit: 2, code: "invalid_slug" },
    { slug: "..", label: "..", exit: 2, code: "invalid_slug" },
    { slug: ".", label: ".", exit: 2, code: "invalid_slug" },
    { slug: "/", label: "/", exit: 2, code: "invalid_slug" },
    { slug: "../../etc/passwd", label: "../../etc/passwd", exit: 2, code: "invalid_slug" },
    { slug: "..\\..\\x", label: "backslashes", exit: 2, code: "invalid_slug" },
    { slug: "a\tb", label: "a tab", exit: 2, code: "invalid_slug" },
    { slug: "%2e%2e", label: "%2e%2e (sent literally)", exit: 5, code: "not_found" },
    { slug: "%2F..%2F", label: "%2F..%2F (sent literally)", exit: 5, code: "not_found" },
    { slug: "a b", label: "a space", exit: 5, code: "not_found" },
    { slug: "ünï-cödé-🌲", label: "unicode", exit: 5, code: "not_found" },
    { slug: tenKb, label: "10 kB", exit: 5, code: "not_found" },
  ];
  const commands = ["pack", "asset"] as const;
  const rows = cases.flatMap((c) => commands.map((kind) => ({ ...c, kind })));

  it.concurrent.for(rows)("$kind get <$label> → exit $exit $code", async (row, { expect }) => {
    await withMock(async (mock) => {
      const box = sandbox();
      const r = await run([row.kind, "get", row.slug, "--json"], {
        env: envFor(mock),
        cwd: box.out,
      });
      expect(r.code, r.stderr).toBe(row.exit);
      expect(r.error?.code).toBe(row.code);
      expect(r.stdout).toBe("");
      expect(finalFiles(box.out)).toEqual([]);
      expect(strayPaths(box.root)).toEqual([]);
      const downloads = mock.requests.filter((q) => q.url.includes("/download"));
      if (row.exit === 2) {
        expect(mock.requests).toEqual([]);
      } else {
        // passed on percent-encoded as one path segment: the service's own answer
        expect(downloads).toHaveLength(1);
        expect(downloads[0]?.url).toBe(
          `/api/v1/${row.kind}s/${encodeURIComponent(row.slug)}/download`,
        );
        expect(r.error?.request_id).toBe(downloads[0]?.requestId);
      }
    });
  });

  it.concurrent.for(["", "..", "a/b"])(
    "legacy get --pack %j → exit 2, no request",
    async (slug, { expect }) => {
      await withMock(async (mock) => {
        const box = sandbox();
        const r = await run(["legacy", "get", "--pack", slug, "--json"], {
          env: { SVC_BASE_URL: mock.baseUrl, SVC_LICENSE_KEY: mock.licenseKey },
          cwd: box.out,
        });
        expect(r.code, r.stderr).toBe(2);
        expect(r.error?.code).toBe("invalid_slug");
        expect(mock.requests).toEqual([]);
        expect(strayPaths(box.root)).toEqual([]);
      });
    },
  );
});

describe("bad keys", () => {
  type KeyCase = {
    label: string;
    key: (m: MockService) => string;
    exit: number;
    code?: string;
    requests: number;
  };
  const envCases: KeyCase[] = [
    { label: "empty", key: () => "", exit: 3, code: "no_api_key", requests: 0 },
    { label: "only whitespace", key: () => " \t\n ", exit: 3, code: "no_api_key", requests: 0 },
    {
      label: "a license key (SVC_…)",
      key: (m) => m.licenseKey,
      exit: 2,
      code: "license_key_as_api_key",
      requests: 0,
    },
    {
      label: "truncated",
      key: (m) => m.apiKey.slice(0, -6),
      exit: 3,
      code: "invalid_api_key",
      requests: 1,
    },
    {
      label: "a line break inside",
      key: (m) => `${m.apiKey.slice(0, 20)}\n${m.apiKey.slice(20)}`,
      exit: 2,
      code: "malformed_api_key",
      requests: 0,
    },
    {
      label: "non-ASCII characters",
      key: (m) => `${m.apiKey}日本`,
      exit: 2,
      code: "malformed_api_key",
      requests: 0,
    },
    {
      label: "a zero-width space",
      key: (m) => `${m.apiKey.slice(0, 20)}\u200b${m.apiKey.slice(20)}`,
      exit: 2,
      code: "malformed_api_key",
      requests: 0,
    },
    {
      label: "surrounding whitespace (trimmed: works)",
      key: (m) => `  ${m.apiKey}\n`,
      exit: 0,
      requests: 1,
    },
  ];

  it.concurrent.for(envCases)("SVC_API_KEY $label → exit $exit", async (c, { expect }) => {
    await withMock(async (mock) => {
      const key = c.key(mock);
      if (key.trim().length >= 12) registerSecret(key.trim());
      const r = await run(["whoami", "--json"], {
        env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: key },
        cwd: tempDir(),
      });
      expect(r.code, r.stderr).toBe(c.exit);
      if (c.code) expect(r.error?.code).toBe(c.code);
      // 401s are never retried; refused keys make no request
      expect(mock.requests).toHaveLength(c.requests);
    });
  });

  const loginCases: KeyCase[] = [
    { label: "empty", key: () => "", exit: 2, code: "empty_key", requests: 0 },
    { label: "only whitespace", key: () => " \n\t ", exit: 2, code: "empty_key", requests: 0 },
    {
      label: "a license key",
      key: (m) => m.licenseKey,
      exit: 2,
      code: "license_key_as_api_key",
      requests: 0,
    },
    {
      label: "truncated",
      key: (m) => m.apiKey.slice(0, -6),
      exit: 3,
      code: "invalid_api_key",
      requests: 1,
    },
    {
      label: "a space inside",
      key: (m) => `${m.apiKey.slice(0, 20)} ${m.apiKey.slice(20)}`,
      exit: 2,
      code: "malformed_api_key",
      requests: 0,
    },
    {
      label: "the whole key with a trailing newline (works)",
      key: (m) => `${m.apiKey}\n`,
      exit: 0,
      requests: 1,
    },
  ];

  it.concurrent.for(loginCases)(
    "auth login --with-key, $label → exit $exit",
    async (c, { expect }) => {
      await withMock(async (mock) => {
        envFor(mock); // registers the demo keys
        const r = await run(["auth", "login", "--with-key"], {
          env: { SVC_BASE_URL: mock.baseUrl },
          cwd: tempDir(),
          input: c.key(mock),
        });
        expect(r.code, r.stderr).toBe(c.exit);
        if (c.code) expect(r.stderr).toContain(c.code);
        expect(mock.requests).toHaveLength(c.requests);
        // only a key the service accepted is ever stored
        const configFile = join(r.configDir, "config.json");
        const stored = existsSync(configFile) ? readFileSync(configFile, "utf8") : "";
        if (c.exit === 0) expect(stored).toContain(mock.apiKey);
        else expect(stored).not.toContain("svc_live_");
      });
    },
  );
});

describe("bad base URLs", () => {
  const cases: { label: string; url: (m: MockService) => string; code: string; via?: "flag" }[] = [
    {
      label: "missing scheme",
      url: (m) => m.baseUrl.replace(/^http:\/\//, ""),
      code: "invalid_base_url",
    },
    { label: "a bare host name", url: () => "localhost", code: "invalid_base_url" },
    {
      label: "http:// to a non-loopback host",
      url: () => "http://assets.example.com",
      code: "insecure_base_url",
    },
    {
      label: "http:// to a private address",
      url: () => "http://10.0.0.1:8080",
      code: "insecure_base_url",
      via: "flag",
    },
    {
      label: "http:// to a name that merely starts with localhost",
      url: () => "http://localhost.example.com",
      code: "insecure_base_url",
    },
    {
      label: "http:// to 127.0.0.1 spelled as a DNS name",
      url: () => "http://127.0.0.1.nip.io",
      code: "insecure_base_url",
    },
    { label: "a trailing /api/v1", url: (m) => `${m.baseUrl}/api/v1`, code: "invalid_base_url" },
    {
      label: "a trailing /api/v1/",
      url: (m) => `${m.baseUrl}/api/v1/`,
      code: "invalid_base_url",
      via: "flag",
    },
    { label: "a trailing /api", url: (m) => `${m.baseUrl}/api`, code: "invalid_base_url" },
    { label: "ftp://", url: () => "ftp://127.0.0.1/", code: "invalid_base_url" },
    {
      label: "credentials in the URL",
      url: (m) => m.baseUrl.replace("http://", "http://user:pw@"),
      code: "invalid_base_url",
    },
    { label: "a query string", url: (m) => `${m.baseUrl}/?key=x`, code: "invalid_base_url" },
  ];

  it.concurrent.for(cases)("$label → exit 2 $code, no request", async (c, { expect }) => {
    await withMock(async (mock) => {
      const url = c.url(mock);
      const env = envFor(mock);
      const args =
        c.via === "flag" ? ["--base-url", url, "whoami", "--json"] : ["whoami", "--json"];
      const r = await run(args, {
        env: { ...env, SVC_BASE_URL: c.via === "flag" ? undefined : url },
        cwd: tempDir(),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.error?.code).toBe(c.code);
      expect(mock.requests).toEqual([]);
    });
  });

  it("loopback spellings and a trailing slash work; `config set` refuses an insecure URL", async () => {
    await withMock(async (mock) => {
      const env = envFor(mock);
      const port = new URL(mock.baseUrl).port;
      for (const url of [`http://localhost:${port}`, `${mock.baseUrl}/`]) {
        const r = await run(["whoami", "--json"], {
          env: { ...env, SVC_BASE_URL: url },
          cwd: tempDir(),
        });
        expect(r.code, `${url}: ${r.stderr}`).toBe(0);
      }
      const set = await run(["config", "set", "base-url", "http://assets.example.com", "--json"], {
        env: {},
        cwd: tempDir(),
      });
      expect(set.code).toBe(2);
      expect(listTree(set.configDir).filter((p) => p.endsWith(".json"))).toEqual([]);
    });
  });
});

describe("flags in wrong combinations → exit 2, no request, nothing written", () => {
  const cases: { label: string; args: string[] }[] = [
    {
      label: "legacy get with both --pack and --asset",
      args: ["legacy", "get", "--pack", "a", "--asset", "b"],
    },
    { label: "legacy get with neither", args: ["legacy", "get"] },
    {
      label: "legacy get --asset with --edition",
      args: ["legacy", "get", "--asset", "a", "--edition", "authoring"],
    },
    {
      label: "legacy get --pack with an unknown --edition",
      args: ["legacy", "get", "--pack", "a", "--edition", "deluxe"],
    },
    {
      label: "pack get with an unknown --edition",
      args: ["pack", "get", "a", "--edition", "deluxe"],
    },
    { label: "pack get without a slug", args: ["pack", "get"] },
    { label: "asset get with --edition", args: ["asset", "get", "a", "--edition", "authoring"] },
    { label: "asset get -o - with --json", args: ["asset", "get", "a", "-o", "-", "--json"] },
    { label: "asset get -o with an empty path", args: ["asset", "get", "a", "-o", ""] },
    { label: "packs sync -o -", args: ["packs", "sync", "-o", "-"] },
    {
      label: "packs sync with an unknown --edition",
      args: ["packs", "sync", "--edition", "deluxe"],
    },
    { label: "packs sync with two directories", args: ["packs", "sync", "a", "b"] },
    { label: "--max-wait -1", args: ["--max-wait", "-1", "whoami"] },
    { label: "--max-wait abc", args: ["--max-wait", "abc", "whoami"] },
    { label: "packs list --limit 0", args: ["packs", "list", "--limit", "0"] },
    { label: "packs list --limit 2.5", args: ["packs", "list", "--limit", "2.5"] },
    { label: "an unknown command", args: ["pakcs", "list"] },
    { label: "an unknown global option", args: ["--bogus", "whoami"] },
  ];

  it.concurrent.for(cases)("$label", async (c, { expect }) => {
    await withMock(async (mock) => {
      const box = sandbox();
      const r = await run(c.args, {
        env: { ...envFor(mock), SVC_LICENSE_KEY: mock.licenseKey },
        cwd: box.out,
      });
      expect(r.code, r.stderr).toBe(2);
      // a clear error naming its code (as a human line, or the --json error document)
      expect(r.stderr).toMatch(/error: [\s\S]*\(code [a-z_]+\)|^\{"error":\{"code":"[a-z_]+"/);
      expect(r.stdout).toBe("");
      expect(mock.requests).toEqual([]);
      expect(listTree(box.root)).toEqual(["out"]);
    });
  });
});
