import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigStore } from "../../../src/config/store.js";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { assertNoSecrets, runCli, tempConfigDir } from "../../helpers/cli.js";

let a: MockService;
let b: MockService;
beforeAll(async () => {
  [a, b] = await Promise.all([
    startMockService({ quiet: true }),
    startMockService({ quiet: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});
beforeEach(() => {
  a.clearLog();
  b.clearLog();
});

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function configText(dir: string): string {
  return readFileSync(join(dir, "config.json"), "utf8");
}

describe("auth login", () => {
  it("checks the key with GET /v1/me, stores it 0600 in a 0700 directory, prints who and the preview", async () => {
    const dir = join(tempConfigDir(), "nested", "svc-dl");
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: `  ${a.apiKey}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Demo Artist");
    expect(r.stderr).toContain(a.apiKey.slice(0, 13));
    expect(a.requests).toHaveLength(1);
    expect(a.requests[0]?.url).toBe("/api/v1/me");
    expect(a.requests[0]?.headers.authorization).toBe(`Bearer ${a.apiKey}`);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "config.json"))).toBe(0o600);
    expect(mode(join(dir, "config.json")) & 0o077).toBe(0); // not group/world readable
    const stored = JSON.parse(configText(dir)) as { keys: Record<string, string> };
    expect(stored.keys[new URL(a.baseUrl).origin]).toBe(a.apiKey);

    const who = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(who.code).toBe(0);
    expect(who.stdout).toContain("demo@example.com");
  });

  it("tightens an existing 0755 directory", async () => {
    const dir = tempConfigDir();
    const { chmodSync } = await import("node:fs");
    chmodSync(dir, 0o755);
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: a.apiKey,
    });
    expect(r.code).toBe(0);
    expect(mode(dir)).toBe(0o700);
  });

  it("refuses a license key locally: exit 2, hint to legacy get, no request", async () => {
    const dir = tempConfigDir();
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: `${a.licenseKey}\n`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("license_key_as_api_key");
    expect(r.stderr).toContain("legacy get");
    expect(a.requests).toHaveLength(0);
  });

  it("refuses empty input with exit 2", async () => {
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl },
      input: "   \n",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("empty_key");
    expect(a.requests).toHaveLength(0);
  });

  it("without a TTY and without --with-key: exit 2 explaining --with-key", async () => {
    const r = await runCli(["auth", "login"], { env: { SVC_BASE_URL: a.baseUrl } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--with-key");
    expect(a.requests).toHaveLength(0);
  });

  it("stores nothing when the service refuses the key, and exits with its code", async () => {
    const dir = tempConfigDir();
    const revoked = a.keys.key_revoked ?? "";
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: revoked,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("revoked_api_key");
    expect(a.requests).toHaveLength(1);
    let text = "";
    try {
      text = configText(dir);
    } catch {
      text = "";
    }
    expect(text).not.toContain(revoked);
  });

  it("checks the given key, not SVC_API_KEY or the stored one", async () => {
    const r = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_API_KEY: a.keys.key_lifetime },
      input: a.apiKey,
    });
    expect(r.code).toBe(0);
    expect(a.requests[0]?.headers.authorization).toBe(`Bearer ${a.apiKey}`);
    expect(r.stderr).toContain("SVC_API_KEY is set");
  });

  it("needs a base URL (exit 2) before reading anything", async () => {
    const r = await runCli(["auth", "login", "--with-key"], { input: a.apiKey });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no_base_url");
  });

  it("--json prints the origin, account and key record (preview only)", async () => {
    const r = await runCli(["--json", "auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl },
      input: a.apiKey,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { origin: string; key: { preview: string } };
    expect(doc.origin).toBe(new URL(a.baseUrl).origin);
    expect(a.apiKey.startsWith(doc.key.preview)).toBe(true);
  });
});

describe("keys are stored per service origin", () => {
  it("a key stored for one origin is never sent to another", async () => {
    const dir = tempConfigDir();
    const loginA = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: a.apiKey,
    });
    expect(loginA.code).toBe(0);
    b.clearLog();
    const onB = await runCli(["whoami"], {
      env: { SVC_BASE_URL: b.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(onB.code).toBe(3);
    expect(onB.stderr).toContain("no_api_key");
    expect(b.requests).toHaveLength(0);

    // Log in to B with another key: each origin gets its own key.
    const otherKey = b.keys.key_lifetime ?? "";
    const loginB = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: b.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: otherKey,
    });
    expect(loginB.code).toBe(0);
    a.clearLog();
    b.clearLog();
    await runCli(["whoami"], { env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir } });
    await runCli(["whoami"], { env: { SVC_BASE_URL: b.baseUrl, SVC_DL_CONFIG_DIR: dir } });
    expect(a.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${a.apiKey}`]);
    expect(b.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${otherKey}`]);
  });
});

describe("auth logout", () => {
  it("deletes the key of the current origin only, exit 0 even when none is stored", async () => {
    const dir = tempConfigDir();
    for (const [m, k] of [
      [a, a.apiKey],
      [b, b.apiKey],
    ] as const) {
      const r = await runCli(["auth", "login", "--with-key"], {
        env: { SVC_BASE_URL: m.baseUrl, SVC_DL_CONFIG_DIR: dir },
        input: k,
      });
      expect(r.code).toBe(0);
    }
    const out = await runCli(["auth", "logout"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("Removed");
    const stored = JSON.parse(configText(dir)) as { keys: Record<string, string> };
    expect(Object.keys(stored.keys)).toEqual([new URL(b.baseUrl).origin]);
    const again = await runCli(["auth", "logout"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("No API key was stored");
    const who = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(who.code).toBe(3);
    // the config file is not world-readable and the output never showed a key
    expect(mode(join(dir, "config.json")) & 0o077).toBe(0);
    assertNoSecrets(out.stdout + out.stderr, "logout output");
  });
});

describe("a refused key says where it came from", () => {
  it("SVC_API_KEY: whoami names the variable, in the error line and the --json message", async () => {
    const env = { SVC_BASE_URL: a.baseUrl, SVC_API_KEY: a.keys.key_revoked };
    const r = await runCli(["whoami"], { env });
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")[0]).toMatch(
      /^error: the API key from SVC_API_KEY was refused: .*\(code revoked_api_key, HTTP 401, request id /,
    );
    expect(r.stderr).toMatch(
      /\nhint: Set SVC_API_KEY to a valid key .*or unset it and run `svc-dl auth login`/,
    );
    const json = await runCli(["whoami", "--json"], { env });
    const doc = JSON.parse(json.stderr) as {
      error: { code: string; message: string; hint: string };
    };
    expect(doc.error.code).toBe("revoked_api_key");
    expect(doc.error.message).toMatch(/^the API key from SVC_API_KEY was refused: /);
    expect(doc.error.hint).toMatch(/^Set SVC_API_KEY to a valid key/);
  });

  it("config file: auth status names the file and the service origin", async () => {
    const dir = tempConfigDir();
    const origin = new URL(a.baseUrl).origin;
    await new ConfigStore({ SVC_DL_CONFIG_DIR: dir }).setKey(origin, a.keys.key_revoked ?? "");
    const r = await runCli(["auth", "status"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `error: the API key stored in the config file for ${origin} was refused: `,
    );
    expect(r.stderr).toMatch(/\nhint: Run `svc-dl auth login` with a valid key/);
    expect(r.stderr).not.toContain("SVC_API_KEY");
  });
});
