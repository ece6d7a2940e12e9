import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  type Stats,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigStore } from "../../src/config/store.js";
import { SvcError } from "../../src/errors/svc-error.js";
import { unsafeDirProblem } from "../../src/io/safe-fs.js";

function dir(): string {
  return join(mkdtempSync(join(tmpdir(), "svc-dl-store-")), "cfg");
}

const mode = (p: string) => statSync(p).mode & 0o777;

describe("ConfigStore", () => {
  it("creates its directory 0700 on open, and the file 0600 on write", async () => {
    const d = dir();
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
    expect(mode(d)).toBe(0o700);
    await store.set("base-url", "https://x.example");
    expect(store.path).toBe(join(d, "config.json"));
    expect(mode(store.path)).toBe(0o600);
  });

  it("tightens a directory and file that were too open", async () => {
    const d = dir();
    await new ConfigStore({ SVC_DL_CONFIG_DIR: d }).set("base-url", "https://x.example");
    chmodSync(d, 0o755);
    chmodSync(join(d, "config.json"), 0o644);
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
    expect(mode(d)).toBe(0o700);
    await store.setKey("https://x.example", "svc_live_k");
    expect(mode(join(d, "config.json"))).toBe(0o600);
  });

  it("keeps keys per origin", async () => {
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: dir() });
    await store.setKey("https://a.example", "svc_live_a");
    await store.setKey("https://b.example", "svc_live_b");
    expect(store.getKey("https://a.example")).toBe("svc_live_a");
    expect(store.getKey("https://a.example:8443")).toBeUndefined();
    expect(store.keyOrigins().sort()).toEqual(["https://a.example", "https://b.example"]);
    expect(await store.deleteKey("https://a.example")).toBe(true);
    expect(await store.deleteKey("https://a.example")).toBe(false);
    expect(store.keyOrigins()).toEqual(["https://b.example"]);
  });

  it("unset says whether the value was set", async () => {
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: dir() });
    expect(await store.unset("base-url")).toBe(false);
    await store.set("base-url", "https://x.example");
    expect(await store.unset("base-url")).toBe(true);
    expect(store.get("base-url")).toBeUndefined();
    expect(JSON.parse(readFileSync(store.path, "utf8"))).not.toHaveProperty("base-url");
  });

  it("a corrupt config file is a configuration error (exit 2) naming the file", async () => {
    const d = dir();
    await new ConfigStore({ SVC_DL_CONFIG_DIR: d }).set("base-url", "https://x.example");
    writeFileSync(join(d, "config.json"), "{not json");
    try {
      new ConfigStore({ SVC_DL_CONFIG_DIR: d }).get("base-url");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SvcError);
      expect((err as SvcError).code).toBe("config_invalid");
      expect((err as SvcError).exitCode).toBe(2);
      expect((err as SvcError).hint).toContain(join(d, "config.json"));
    }
  });

  it("a known setting that is not a string, or a key named twice, is config_invalid naming it", async () => {
    for (const [text, named] of [
      ['{"base-url": 5}', "base-url"],
      ['{"keys": {"https://x.example": ["svc_live_k"]}}', "keys"],
      ['{"proxy": "http://a:1", "proxy": "http://b:2"}', "proxy"],
    ] as const) {
      const d = dir();
      await new ConfigStore({ SVC_DL_CONFIG_DIR: d }).set("ca-file", "/etc/ca.pem");
      writeFileSync(join(d, "config.json"), text);
      const err = (() => {
        try {
          new ConfigStore({ SVC_DL_CONFIG_DIR: d });
        } catch (e) {
          return e as SvcError;
        }
      })();
      expect(err?.code).toBe("config_invalid");
      expect(err?.message).toContain(named);
      expect(err?.message).not.toContain("svc_live_k");
    }
  });

  it("keeps settings it does not know when it writes (the file is conf's)", async () => {
    const d = dir();
    mkdirSync(d, { mode: 0o700 });
    writeFileSync(join(d, "config.json"), '{"future-setting": {"a": 1}}');
    chmodSync(join(d, "config.json"), 0o600);
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
    await store.set("base-url", "https://x.example");
    expect(JSON.parse(readFileSync(store.path, "utf8"))).toEqual({
      "future-setting": { a: 1 },
      "base-url": "https://x.example",
    });
    expect(new ConfigStore({ SVC_DL_CONFIG_DIR: d }).get("base-url")).toBe("https://x.example");
  });

  it("writes the file 0600 and the directory 0700 under umask 000", async () => {
    const old = process.umask(0);
    try {
      const d = dir();
      const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
      await store.setKey("https://x.example", "svc_live_k");
      expect(mode(d)).toBe(0o700);
      expect(mode(store.path)).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });
});

describe("ConfigStore refuses an unsafe config directory or file (unsafe_config, exit 8)", () => {
  const refused = async (env: Record<string, string>, write = false): Promise<SvcError> => {
    try {
      const store = new ConfigStore(env);
      if (write) await store.setKey("https://x.example", "svc_live_secret");
    } catch (err) {
      expect(err).toBeInstanceOf(SvcError);
      return err as SvcError;
    }
    throw new Error("expected the config store to refuse");
  };

  it("a config directory that is a symlink", async () => {
    const real = mkdtempSync(join(tmpdir(), "svc-dl-store-real-"));
    chmodSync(real, 0o700);
    const link = `${dir()}-link`;
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(real, link);
    const err = await refused({ SVC_DL_CONFIG_DIR: link });
    expect(err.code).toBe("unsafe_config");
    expect(err.exitCode).toBe(8);
    expect(err.hint).toContain("SVC_DL_CONFIG_DIR");
  });

  it("a config directory writable by group or others", async () => {
    for (const m of [0o770, 0o707, 0o777]) {
      const d = dir();
      mkdirSync(d, { recursive: true });
      chmodSync(d, m);
      expect((await refused({ SVC_DL_CONFIG_DIR: d })).code).toBe("unsafe_config");
      expect(mode(d)).toBe(m);
    }
  });

  it("a config directory owned by another user", async () => {
    const d = dir();
    mkdirSync(d, { recursive: true, mode: 0o700 });
    const uid = process.geteuid?.() ?? 0;
    if (uid !== 0) {
      // Only root can give a directory away: check the rule on its stats instead.
      const st = statSync(d);
      const foreign = Object.assign(Object.create(Object.getPrototypeOf(st)), st, {
        uid: uid + 1,
      }) as Stats;
      expect(unsafeDirProblem(foreign)).toContain("another user");
      return;
    }
    chownSync(d, 65534, 65534);
    const err = await refused({ SVC_DL_CONFIG_DIR: d }, true);
    expect(err.code).toBe("unsafe_config");
    expect(err.message).toContain("another user");
  });

  it("a config file that is a symlink: the key is never written through it", async () => {
    const d = dir();
    mkdirSync(d, { recursive: true, mode: 0o700 });
    const victim = join(mkdtempSync(join(tmpdir(), "svc-dl-victim-")), "readable.json");
    writeFileSync(victim, "{}\n", { mode: 0o644 });
    symlinkSync(victim, join(d, "config.json"));
    expect((await refused({ SVC_DL_CONFIG_DIR: d }, true)).code).toBe("unsafe_config");
    expect(readFileSync(victim, "utf8")).toBe("{}\n");
    expect(mode(victim)).toBe(0o644);
  });
});
