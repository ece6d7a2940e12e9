import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigStore } from "../../../src/config/store.js";
import { SvcError } from "../../../src/errors/svc-error.js";

function dir(): string {
  return join(mkdtempSync(join(tmpdir(), "svc-dl-store-")), "cfg");
}

const mode = (p: string) => statSync(p).mode & 0o777;

describe("ConfigStore", () => {
  it("creates its directory 0700 on open, and the file 0600 on write", () => {
    const d = dir();
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
    expect(mode(d)).toBe(0o700);
    store.set("base-url", "https://x.example");
    expect(store.path).toBe(join(d, "config.json"));
    expect(mode(store.path)).toBe(0o600);
  });

  it("tightens a directory and file that were too open", () => {
    const d = dir();
    new ConfigStore({ SVC_DL_CONFIG_DIR: d }).set("base-url", "https://x.example");
    chmodSync(d, 0o755);
    chmodSync(join(d, "config.json"), 0o644);
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: d });
    expect(mode(d)).toBe(0o700);
    store.setKey("https://x.example", "svc_live_k");
    expect(mode(join(d, "config.json"))).toBe(0o600);
  });

  it("keeps keys per origin", () => {
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: dir() });
    store.setKey("https://a.example", "svc_live_a");
    store.setKey("https://b.example", "svc_live_b");
    expect(store.getKey("https://a.example")).toBe("svc_live_a");
    expect(store.getKey("https://a.example:8443")).toBeUndefined();
    expect(store.keyOrigins().sort()).toEqual(["https://a.example", "https://b.example"]);
    expect(store.deleteKey("https://a.example")).toBe(true);
    expect(store.deleteKey("https://a.example")).toBe(false);
    expect(store.keyOrigins()).toEqual(["https://b.example"]);
  });

  it("unset says whether the value was set", () => {
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: dir() });
    expect(store.unset("base-url")).toBe(false);
    store.set("base-url", "https://x.example");
    expect(store.unset("base-url")).toBe(true);
    expect(store.get("base-url")).toBeUndefined();
    expect(JSON.parse(readFileSync(store.path, "utf8"))).not.toHaveProperty("base-url");
  });

  it("a corrupt config file is a configuration error (exit 2) naming the file", () => {
    const d = dir();
    new ConfigStore({ SVC_DL_CONFIG_DIR: d }).set("base-url", "https://x.example");
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
});
