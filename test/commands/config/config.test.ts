import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { runCli, tempConfigDir } from "../../helpers/cli.js";

let a: MockService;
let b: MockService;
let c: MockService;
beforeAll(async () => {
  [a, b, c] = await Promise.all([
    startMockService({ quiet: true }),
    startMockService({ quiet: true }),
    startMockService({ quiet: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
});
beforeEach(() => {
  for (const m of [a, b, c]) m.clearLog();
});

describe("config get|set|unset|list|path", () => {
  it("sets, gets, lists and unsets base-url; the file is 0600 in a 0700 directory", async () => {
    const dir = tempConfigDir();
    const env = { SVC_DL_CONFIG_DIR: dir };
    const set = await runCli(["config", "set", "base-url", `${a.baseUrl}/`], { env });
    expect(set.code).toBe(0);
    const get = await runCli(["config", "get", "base-url"], { env });
    expect(get.code).toBe(0);
    expect(get.stdout).toBe(`${a.baseUrl}\n`);
    expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const list = await runCli(["config", "list", "--json"], { env });
    expect(list.code).toBe(0);
    const doc = JSON.parse(list.stdout) as { path: string; settings: Record<string, unknown> };
    expect(doc.settings["base-url"]).toBe(a.baseUrl);
    expect(doc.path).toBe(join(dir, "config.json"));

    const unset = await runCli(["config", "unset", "base-url"], { env });
    expect(unset.code).toBe(0);
    const after = await runCli(["config", "get", "base-url"], { env });
    expect(after.code).toBe(0);
    expect(after.stdout).toBe("");
    const json = await runCli(["--json", "config", "get", "base-url"], { env });
    expect(JSON.parse(json.stdout)).toEqual({ key: "base-url", value: null });
  });

  it("config set/get/list show a proxy's password as *** (human and --json); the file keeps it", async () => {
    const dir = tempConfigDir();
    const env = { SVC_DL_CONFIG_DIR: dir };
    const secret = "Pr0xyPassw0rd";
    const proxy = `http://bob:${secret}@proxy.example:3128`;
    const shown = "http://bob:***@proxy.example:3128";
    const runs = [
      await runCli(["config", "set", "proxy", proxy], { env }),
      await runCli(["config", "get", "proxy"], { env }),
      await runCli(["config", "list"], { env }),
      await runCli(["--json", "config", "set", "proxy", proxy], { env }),
      await runCli(["--json", "config", "get", "proxy"], { env }),
      await runCli(["--json", "config", "list"], { env }),
    ];
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stdout + r.stderr).toContain(shown);
    }
    expect(runs[1]?.stdout).toBe(`${shown}\n`);
    expect(runs[2]?.stdout).toContain(`proxy=${shown}\n`);
    expect(JSON.parse(runs[4]?.stdout ?? "")).toEqual({ key: "proxy", value: shown });
    const file = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as { proxy: string };
    expect(file.proxy).toBe(proxy);
  });

  it("config set/get/list hide a proxy token given as the user name alone (http://TOKEN@host)", async () => {
    const env = { SVC_DL_CONFIG_DIR: tempConfigDir() };
    const token = "ghp_ProxyT0kenOnly1234";
    const proxy = `http://${token}@proxy.example:3128`;
    const shown = "http://***@proxy.example:3128";
    const runs = [
      await runCli(["config", "set", "proxy", proxy], { env }),
      await runCli(["config", "get", "proxy"], { env }),
      await runCli(["config", "list"], { env }),
      await runCli(["--json", "config", "list"], { env }),
    ];
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(token.slice(4, 14));
      expect(r.stdout + r.stderr).toContain(shown);
    }
  });

  it("config list shows the key preview the service gave at login, as whoami does", async () => {
    const dir = tempConfigDir();
    const env = { SVC_DL_CONFIG_DIR: dir, SVC_BASE_URL: a.baseUrl };
    const login = await runCli(["auth", "login", "--with-key"], { env, input: a.apiKey });
    expect(login.code).toBe(0);
    const who = await runCli(["whoami"], { env });
    const shown = /key: +.* \((\S+…),/.exec(who.stdout)?.[1];
    expect(shown).toBe(`${a.apiKey.slice(0, 13)}…`);
    expect(login.stderr).toContain(`(${shown})`);
    const list = await runCli(["config", "list"], { env });
    expect(list.stdout).toContain(`key for ${new URL(a.baseUrl).origin}: ${shown}\n`);
    const json = await runCli(["config", "list", "--json"], { env });
    const doc = JSON.parse(json.stdout) as { keys: { preview: string }[] };
    expect(doc.keys.map((k) => k.preview)).toEqual([shown]);
    const out = await runCli(["auth", "logout"], { env });
    expect(out.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as {
      previews: Record<string, string>;
    };
    expect(stored.previews).toEqual({});
  });

  it("config path prints the file path under SVC_DL_CONFIG_DIR", async () => {
    const dir = tempConfigDir();
    const r = await runCli(["config", "path"], { env: { SVC_DL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(join(dir, "config.json"));
  });

  it("refuses http:// for a non-loopback host (exit 2) and leaves the file unchanged", async () => {
    const dir = tempConfigDir();
    const env = { SVC_DL_CONFIG_DIR: dir };
    const r = await runCli(["config", "set", "base-url", "http://assets.example.com"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("insecure_base_url");
    expect(r.stderr).toContain("https://assets.example.com");
    const get = await runCli(["config", "get", "base-url"], { env });
    expect(get.stdout).toBe("");
    for (const ok of [
      "http://localhost:8080",
      "http://127.0.0.2:9",
      "http://[::1]:9",
      "https://a.example",
    ]) {
      const s = await runCli(["config", "set", "base-url", ok], { env });
      expect(s.code, ok).toBe(0);
    }
  });

  it("refuses an unknown key (exit 2) and lists the settable keys", async () => {
    for (const args of [
      ["config", "set", "api-key", "x"],
      ["config", "get", "colour"],
      ["config", "unset", "keys"],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("unknown_config_key");
      expect(r.stderr).toContain("Settable keys: base-url");
    }
  });

  it("config list names origins with a stored key but never the key", async () => {
    const dir = tempConfigDir();
    const login = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: a.apiKey,
    });
    expect(login.code).toBe(0);
    const r = await runCli(["config", "list"], { env: { SVC_DL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(new URL(a.baseUrl).origin);
    expect(r.stdout).toContain("…");
    expect(r.stdout).not.toContain(a.apiKey.slice(0, 20));
    const j = await runCli(["--json", "config", "list"], { env: { SVC_DL_CONFIG_DIR: dir } });
    const doc = JSON.parse(j.stdout) as { keys: { origin: string; preview: string }[] };
    expect(doc.keys).toHaveLength(1);
    expect(doc.keys[0]?.preview.endsWith("…")).toBe(true);
  });
});

describe("precedence: --base-url > SVC_BASE_URL > config file", () => {
  it("uses each source in turn", async () => {
    const dir = tempConfigDir();
    const key = a.apiKey; // the same fixture on every mock
    const set = await runCli(["config", "set", "base-url", a.baseUrl], {
      env: { SVC_DL_CONFIG_DIR: dir },
    });
    expect(set.code).toBe(0);
    const env = { SVC_DL_CONFIG_DIR: dir, SVC_API_KEY: key };

    const fromConfig = await runCli(["whoami"], { env });
    expect(fromConfig.code).toBe(0);
    expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([1, 0, 0]);

    const fromEnv = await runCli(["whoami"], { env: { ...env, SVC_BASE_URL: b.baseUrl } });
    expect(fromEnv.code).toBe(0);
    expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([1, 1, 0]);

    const fromFlag = await runCli(["--base-url", c.baseUrl, "whoami"], {
      env: { ...env, SVC_BASE_URL: b.baseUrl },
    });
    expect(fromFlag.code).toBe(0);
    expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([1, 1, 1]);
  });

  it("no base URL anywhere: exit 2 naming all three ways", async () => {
    const r = await runCli(["whoami"], { env: { SVC_API_KEY: a.apiKey } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no_base_url");
    expect(r.stderr).toContain("--base-url");
    expect(r.stderr).toContain("SVC_BASE_URL");
    expect(r.stderr).toContain("config set base-url");
  });

  it("an insecure SVC_BASE_URL is refused with exit 2", async () => {
    const r = await runCli(["whoami"], {
      env: { SVC_API_KEY: a.apiKey, SVC_BASE_URL: "http://10.0.0.1:8080" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("insecure_base_url");
  });

  it("API key: SVC_API_KEY wins over the stored key; whoami --verbose names the source", async () => {
    const dir = tempConfigDir();
    const login = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: a.apiKey,
    });
    expect(login.code).toBe(0);
    a.clearLog();
    const stored = await runCli(["--verbose", "whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(stored.code).toBe(0);
    expect(stored.stderr).toContain("using the API key from the config file");
    const lifetime = a.keys.key_lifetime ?? "";
    const env = await runCli(["--verbose", "whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir, SVC_API_KEY: lifetime },
    });
    expect(env.code).toBe(0);
    expect(env.stderr).toContain("using the API key from SVC_API_KEY");
    expect(env.stdout).toContain("lifetime@example.com");
    expect(a.requests.map((q) => q.headers.authorization)).toEqual([
      `Bearer ${a.apiKey}`,
      `Bearer ${lifetime}`,
    ]);
    const quiet = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
    });
    expect(quiet.stderr).not.toContain("using the API key");
    expect(readFileSync(join(dir, "config.json"), "utf8")).toContain(a.apiKey);
  });
});
