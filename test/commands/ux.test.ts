import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import {
  AuthStatusDocumentSchema,
  ConfigGetDocumentSchema,
  ConfigPathDocumentSchema,
  ErrorLineSchema,
  LoginDocumentSchema,
  LogoutDocumentSchema,
  PacksListDocumentSchema,
  WhoamiDocumentSchema,
} from "../../src/documents.js";
import { runCli, tempConfigDir } from "../helpers/cli.js";
import { useMockService } from "../helpers/mock.js";
import { allCommands, programTree } from "../helpers/program-tree.js";

const shared = useMockService();

function pathOf(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

function errorLine(stderr: string) {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  return ErrorLineSchema.parse(JSON.parse(lines[0] ?? ""));
}

describe("help (cli-contract: Commands)", () => {
  it("every command's help lists the global options and an example", async () => {
    const program = programTree();
    for (const cmd of allCommands(program)) {
      const r = await runCli([...pathOf(cmd).split(" "), "--help"]);
      expect(r.code, pathOf(cmd)).toBe(0);
      expect(r.stdout, pathOf(cmd)).toContain("--base-url <url>");
      expect(r.stdout, pathOf(cmd)).toContain("--json");
      expect(r.stdout, pathOf(cmd)).toMatch(/\$ svc-dl /);
    }
  });

  it("the root help names every environment variable and exit code", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const name of [
      "SVC_BASE_URL",
      "SVC_API_KEY",
      "SVC_LICENSE_KEY",
      "SVC_DL_CONFIG_DIR",
      "SVC_DL_CACHE_DIR",
      "HTTPS_PROXY",
      "HTTP_PROXY",
      "NO_PROXY",
      "SVC_CA_FILE",
      "NO_COLOR",
      "9 lock mismatch",
      "8 local file system",
    ]) {
      expect(r.stdout).toContain(name);
    }
  });

  it("`svc-dl help pack get` is `svc-dl pack get --help`", async () => {
    const viaHelp = await runCli(["help", "pack", "get"]);
    const viaFlag = await runCli(["pack", "get", "--help"]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain("Usage: svc-dl pack get");
  });

  it("`svc-dl help exit-codes` lists every code of the error table under its exit code", async () => {
    const { CODES } = await import("../../src/errors/codes.js");
    const r = await runCli(["help", "exit-codes"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const under = new Map<string, number>();
    let exit = -1;
    for (const line of r.stdout.split("\n")) {
      const head = /^\s{0,2}(\d{1,3}) {2}/.exec(line);
      if (head) exit = Number(head[1]);
      else if (/^ {5}\S/.test(line))
        for (const code of line.trim().split(/,\s*/)) under.set(code, exit);
    }
    for (const [code, entry] of Object.entries(CODES)) {
      if (entry.exitCode === "status") {
        expect(under.has(code), code).toBe(false);
        expect(r.stdout).toContain(`, and ${code}, end with the exit code of`);
      } else {
        expect([code, under.get(code)]).toEqual([code, entry.exitCode]);
      }
    }
  });

  it("`svc-dl help environment` names every variable; an unknown topic is an unknown command", async () => {
    const env = await runCli(["help", "environment"]);
    expect(env.code).toBe(0);
    for (const name of [
      "SVC_BASE_URL",
      "SVC_API_KEY",
      "SVC_DL_CACHE_DIR",
      "NO_PROXY",
      "FORCE_COLOR",
    ]) {
      expect(env.stdout).toContain(name);
    }
    const unknown = await runCli(["help", "whoamy"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("unknown command 'whoamy'; did you mean `svc-dl whoami`?");
  });

  it("a mistyped command exits 2 with one line suggesting the nearest command", async () => {
    const r = await runCli(["whoamy"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "error: unknown command 'whoamy'; did you mean `svc-dl whoami`? (code unknown_command)\n",
    );
    const sub = await runCli(["packs", "lst"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("did you mean `svc-dl packs list`?");
    expect(sub.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a usage error with --json is the JSON error line, hint naming the command's help", async () => {
    const r = await runCli(["packs", "list", "--limit", "0", "--json"]);
    expect(r.code).toBe(2);
    const doc = errorLine(r.stderr);
    expect(doc.error).toMatchObject({
      code: "usage_error",
      http_status: null,
      request_id: null,
      retryable: false,
      hint: "Run `svc-dl packs list --help` for usage and examples.",
    });
  });

  it("--pack and --asset together are refused by commander (exit 2)", async () => {
    const r = await runCli(["legacy", "get", "--pack", "a", "--asset", "b"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot be used with option '--asset <slug>'");
  });
});

describe("auth status (cli-contract: auth status)", () => {
  it("names the origin, the key's source (env), preview, name, scopes and e-mail", async () => {
    const r = await runCli(["auth", "status"], { env: shared.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(new URL(shared.mock.baseUrl).origin);
    expect(r.stdout).toContain("demo@example.com");
    expect(r.stdout).toContain("SVC_API_KEY (environment)");
    expect(r.stdout).toMatch(/key: +.+ \(svc_live_.*…\)/);
    expect(r.stdout).toMatch(/scopes: +\S/);
    expect(r.stdout).not.toContain(shared.mock.apiKey);
  });

  it("--json: {origin, source, account, key} with source config for a stored key", async () => {
    const dir = tempConfigDir();
    const env = { SVC_BASE_URL: shared.mock.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const login = await runCli(["auth", "login", "--with-key"], {
      env,
      input: shared.mock.apiKey,
    });
    expect(login.code).toBe(0);
    const r = await runCli(["auth", "status", "--json"], { env });
    expect(r.code).toBe(0);
    const doc = AuthStatusDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.source).toBe("config");
    expect(doc.origin).toBe(new URL(shared.mock.baseUrl).origin);
    expect(doc.account.email).toBe("demo@example.com");
  });

  it("exits 3 with no key (no_api_key) and with a refused key", async () => {
    const none = await runCli(["auth", "status", "--json"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl },
    });
    expect(none.code).toBe(3);
    expect(errorLine(none.stderr).error.code).toBe("no_api_key");
    const refused = await runCli(["auth", "status"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl, SVC_API_KEY: `svc_live_${"C".repeat(32)}_0000` },
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("invalid_api_key");
  });
});

describe("whoami and packs list documents", () => {
  it("whoami --json matches its schema; --verbose names the key's source", async () => {
    const r = await runCli(["whoami", "--json"], { env: shared.env() });
    expect(r.code).toBe(0);
    WhoamiDocumentSchema.parse(JSON.parse(r.stdout));
    const v = await runCli(["whoami", "--verbose"], { env: shared.env() });
    expect(v.code).toBe(0);
    expect(v.stderr).toContain("using the API key from SVC_API_KEY (environment)");
  });

  it("packs list --json matches its schema", async () => {
    const r = await runCli(["packs", "list", "--json"], { env: shared.env() });
    expect(r.code).toBe(0);
    expect(PacksListDocumentSchema.parse(JSON.parse(r.stdout)).length).toBeGreaterThan(0);
  });

  it("an API error with --json carries retryable and a hint for the command at hand", async () => {
    const r = await runCli(["api", "nonexistent", "--json"], { env: shared.env() });
    expect(r.code).toBe(5);
    const doc = errorLine(r.stderr);
    expect(doc.error.code).toBe("route_not_found");
    expect(doc.error.hint).toContain("check the route");
    expect(doc.error.retryable).toBe(false);
    expect(doc.error.hint).not.toContain("slug with");
    expect(doc.error.request_id).toEqual(expect.any(String));
  });
});

describe("every --json document of auth and config matches its schema", () => {
  it("auth login, auth logout, config get, config path", async () => {
    const env = { SVC_BASE_URL: shared.mock.baseUrl, SVC_DL_CONFIG_DIR: tempConfigDir() };
    const login = await runCli(["auth", "login", "--with-key", "--json"], {
      env,
      input: shared.mock.apiKey,
    });
    expect(login.code).toBe(0);
    LoginDocumentSchema.parse(JSON.parse(login.stdout));
    const logout = await runCli(["auth", "logout", "--json"], { env });
    expect(LogoutDocumentSchema.parse(JSON.parse(logout.stdout)).removed).toBe(true);
    const get = await runCli(["config", "get", "base-url", "--json"], { env });
    expect(ConfigGetDocumentSchema.parse(JSON.parse(get.stdout))).toEqual({
      key: "base-url",
      value: null,
    });
    const path = await runCli(["config", "path", "--json"], { env });
    expect(ConfigPathDocumentSchema.parse(JSON.parse(path.stdout)).path).toContain(
      env.SVC_DL_CONFIG_DIR,
    );
  });
});

describe("colour (cli-contract: Streams and output)", () => {
  it("FORCE_COLOR=0 means none, even on a terminal", async () => {
    const r = await runCli(["whoami"], {
      env: { FORCE_COLOR: "0", SVC_BASE_URL: shared.mock.baseUrl },
      stderrIsTTY: true,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain("\u001b[");
  });

  it("FORCE_COLOR=1 colours even without a terminal; --no-color wins", async () => {
    const env = { FORCE_COLOR: "1", SVC_BASE_URL: shared.mock.baseUrl };
    expect((await runCli(["whoami"], { env })).stderr).toContain("\u001b[");
    expect((await runCli(["whoami", "--no-color"], { env })).stderr).not.toContain("\u001b[");
  });
});

describe("prompts", () => {
  it("a prompt closed without an answer says cancelled, exit 130, no download words", async () => {
    const r = await runCli(["auth", "login"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl },
      stdinIsTTY: true,
      stderrIsTTY: true,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("cancelled");
    expect(r.stderr).not.toMatch(/partial|resume|download/);
    expect(shared.mock.requests).toEqual([]);
  });

  it("the legacy prompt names the key's format and that input is hidden", async () => {
    const r = await runCli(["legacy", "get", "--pack", "low-poly-forest"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl },
      stdinIsTTY: true,
      stderrIsTTY: true,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("License key (SVC_…");
    expect(r.stderr).toContain("input hidden");
  });

  it("a key on stdin larger than 64 KiB is refused (exit 2), for both readers", async () => {
    const big = "x".repeat(65 * 1024);
    const login = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: shared.mock.baseUrl },
      input: big,
    });
    expect(login.code).toBe(2);
    expect(login.stderr).toContain("invalid_key_input");
    const legacy = await runCli(
      ["legacy", "get", "--pack", "low-poly-forest", "--license-key-stdin"],
      { env: { SVC_BASE_URL: shared.mock.baseUrl }, input: big },
    );
    expect(legacy.code).toBe(2);
    expect(legacy.stderr).toContain("invalid_key_input");
  });
});
