import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Keyring, KeyringError } from "../../../src/config/keyring.js";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { runCli, tempConfigDir } from "../../helpers/cli.js";

let a: MockService;
beforeAll(async () => {
  a = await startMockService({ quiet: true });
});
afterAll(async () => {
  await a.close();
});
beforeEach(() => a.clearLog());

function keyFile(key: string, mode = 0o600): string {
  const path = join(mkdtempSync(join(tmpdir(), "svc-dl-key-")), "svc-api-key");
  writeFileSync(path, `${key}\n`);
  chmodSync(path, mode);
  return path;
}

/** An OS keyring held in memory, for the logic around it (the real one: keyring.e2e.test.ts). */
class MemoryKeyring implements Keyring {
  readonly entries = new Map<string, string>();
  broken: string | undefined;
  async get(origin: string) {
    this.#check();
    return this.entries.get(origin);
  }
  async set(origin: string, key: string) {
    this.#check();
    this.entries.set(origin, key);
  }
  async delete(origin: string) {
    this.#check();
    return this.entries.delete(origin);
  }
  #check() {
    if (this.broken) throw new KeyringError(this.broken);
  }
}

const origin = () => new URL(a.baseUrl).origin;

async function status(env: Record<string, string>, keyring?: Keyring) {
  const r = await runCli(["--json", "auth", "status"], {
    env: { SVC_BASE_URL: a.baseUrl, ...env },
    ...(keyring ? { keyring } : {}),
  });
  return { ...r, doc: r.code === 0 ? (JSON.parse(r.stdout) as { source: string }) : undefined };
}

describe("key sources, in the contract's order", () => {
  it("SVC_API_KEY_FILE: the key is read from the file and auth status names the source", async () => {
    const path = keyFile(a.apiKey);
    const r = await status({ SVC_API_KEY_FILE: path });
    expect(r.code).toBe(0);
    expect(r.doc?.source).toBe("file");
    expect(a.requests[0]?.headers.authorization).toBe(`Bearer ${a.apiKey}`);
    const human = await runCli(["auth", "status"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_API_KEY_FILE: path },
    });
    expect(human.stdout).toContain(`source:    SVC_API_KEY_FILE (${path})`);
  });

  it("the systemd credential $CREDENTIALS_DIRECTORY/svc-api-key", async () => {
    const path = keyFile(a.apiKey, 0o400);
    const r = await status({ CREDENTIALS_DIRECTORY: join(path, "..") });
    expect(r.code).toBe(0);
    expect(r.doc?.source).toBe("systemd-credential");
  });

  it("SVC_API_KEY > SVC_API_KEY_FILE > systemd credential > stored key", async () => {
    const dir = tempConfigDir();
    const login = await runCli(["auth", "login", "--with-key"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir },
      input: a.apiKey,
    });
    expect(login.code).toBe(0);
    const bad = keyFile("svc_live_notthekeyatall_00000000");
    const cred = join(keyFile("svc_live_notthecredential_0000000"), "..");
    const env = { SVC_DL_CONFIG_DIR: dir };
    expect((await status(env)).doc?.source).toBe("config");
    expect(
      (await status({ ...env, CREDENTIALS_DIRECTORY: join(keyFile(a.apiKey), "..") })).doc?.source,
    ).toBe("systemd-credential");
    expect(
      (await status({ ...env, CREDENTIALS_DIRECTORY: cred, SVC_API_KEY_FILE: keyFile(a.apiKey) }))
        .doc?.source,
    ).toBe("file");
    expect(
      (await status({ ...env, SVC_API_KEY_FILE: bad, SVC_API_KEY: a.apiKey })).doc?.source,
    ).toBe("env");
  });

  it("a key file readable by others: exit 8 unsafe_key_file, nothing sent", async () => {
    const path = keyFile(a.apiKey, 0o644);
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_API_KEY_FILE: path },
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("unsafe_key_file");
    expect(r.stderr).toContain(path);
    expect(r.stderr).toContain("chmod 600");
    expect(a.requests).toEqual([]);
  });

  it("a symlinked key file is refused even when its target is safe", async () => {
    const target = keyFile(a.apiKey);
    const link = join(mkdtempSync(join(tmpdir(), "svc-dl-key-")), "link");
    symlinkSync(target, link);
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_API_KEY_FILE: link },
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("symbolic link");
  });

  it("a refused key from a file names the file and the step that fixes it", async () => {
    const path = keyFile(a.keys.key_revoked ?? "");
    const r = await runCli(["whoami"], {
      env: { SVC_BASE_URL: a.baseUrl, SVC_API_KEY_FILE: path },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`the API key in ${path} (SVC_API_KEY_FILE) was refused`);
    expect(r.stderr).toContain(`Put a valid key in ${path}`);
  });
});

describe("auth login with an OS keyring", () => {
  it("stores the key in the keyring; the config file records only where, with the preview", async () => {
    const dir = tempConfigDir();
    const keyring = new MemoryKeyring();
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const r = await runCli(["auth", "login", "--with-key"], { env, input: a.apiKey, keyring });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("stored in the OS keyring");
    expect(r.stderr).not.toContain("warning");
    expect(keyring.entries.get(origin())).toBe(a.apiKey);
    const file = readFileSync(join(dir, "config.json"), "utf8");
    expect(file).not.toContain(a.apiKey);
    expect(JSON.parse(file)).toMatchObject({ "key-storage": { [origin()]: "keyring" } });

    expect((await status({ SVC_DL_CONFIG_DIR: dir }, keyring)).doc?.source).toBe("keyring");
    const list = await runCli(["--json", "config", "list"], { env, keyring });
    expect(JSON.parse(list.stdout).keys).toEqual([
      { origin: origin(), preview: expect.stringMatching(/…$/) },
    ]);

    const out = await runCli(["--json", "auth", "logout"], { env, keyring });
    expect(JSON.parse(out.stdout)).toEqual({ origin: origin(), removed: true, from: ["keyring"] });
    expect(keyring.entries.size).toBe(0);
    expect((await status({ SVC_DL_CONFIG_DIR: dir }, keyring)).code).toBe(3);
  });

  it("an unusable keyring: says so on stderr, then stores the key in the 0600 config file", async () => {
    const dir = tempConfigDir();
    const keyring = new MemoryKeyring();
    keyring.broken = "no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set";
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const r = await runCli(["auth", "login", "--with-key"], { env, input: a.apiKey, keyring });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: the OS keyring cannot be used \(no D-Bus session[^\n]*config file/,
    );
    expect(r.stderr.indexOf("keyring cannot be used")).toBeLessThan(r.stderr.indexOf("stored in"));
    expect(readFileSync(join(dir, "config.json"), "utf8")).toContain(a.apiKey);
    expect((await status({ SVC_DL_CONFIG_DIR: dir }, keyring)).doc?.source).toBe("config");
  });

  it("--insecure-storage chooses the file on purpose: no warning, the keyring untouched", async () => {
    const dir = tempConfigDir();
    const keyring = new MemoryKeyring();
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    const r = await runCli(["auth", "login", "--with-key", "--insecure-storage"], {
      env,
      input: a.apiKey,
      keyring,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning");
    expect(keyring.entries.size).toBe(0);
    expect((await status({ SVC_DL_CONFIG_DIR: dir }, keyring)).doc?.source).toBe("config");
    // a later login to the keyring leaves exactly one copy
    await runCli(["auth", "login", "--with-key"], { env, input: a.apiKey, keyring });
    expect(readFileSync(join(dir, "config.json"), "utf8")).not.toContain(a.apiKey);
  });

  it("a key kept in the keyring when the keyring cannot be reached (cron): exit 3 keyring_unavailable with the ways out", async () => {
    const dir = tempConfigDir();
    const keyring = new MemoryKeyring();
    const env = { SVC_BASE_URL: a.baseUrl, SVC_DL_CONFIG_DIR: dir };
    await runCli(["auth", "login", "--with-key"], { env, input: a.apiKey, keyring });
    keyring.broken = "no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set";
    a.clearLog();
    const r = await runCli(["packs", "list"], { env, keyring });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("keyring_unavailable");
    expect(r.stderr).toContain("SVC_API_KEY_FILE");
    expect(r.stderr).toContain("--insecure-storage");
    expect(a.requests).toEqual([]);
    // the environment still wins without touching the keyring
    const viaFile = await runCli(["whoami"], {
      env: { ...env, SVC_API_KEY_FILE: keyFile(a.apiKey) },
      keyring,
    });
    expect(viaFile.code).toBe(0);
  });
});
