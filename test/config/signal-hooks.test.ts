import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigStore, withoutSignalHooks } from "../../src/config/store.js";
import { cleanEnv, spawnCli } from "../helpers/cli.js";

// conf writes through atomically → when-exit, which adds a listener that re-raises the signal
// to SIGINT, SIGTERM, SIGHUP (and more) when it loads; the store removes them after each write,
// so a run that writes config still ends on a signal the way cli-contract "Exit codes" says.

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const counts = (): Record<string, number> =>
  Object.fromEntries(
    [...SIGNALS, "SIGUSR2", "exit"].map((sig) => [sig, process.listenerCount(sig)]),
  );

const temps: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-dl-signal-hooks-"));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("withoutSignalHooks", () => {
  it("removes the signal listeners added while it ran, keeps earlier ones and exit listeners", async () => {
    const mine = (): void => {};
    const foreign = (): void => {};
    const onExit = (): void => {};
    process.on("SIGUSR2", mine);
    try {
      const before = counts();
      const value = await withoutSignalHooks(async () => {
        process.once("SIGINT", foreign);
        process.once("SIGUSR2", foreign);
        process.once("exit", onExit);
        expect(process.listenerCount("SIGINT")).toBe((before.SIGINT ?? 0) + 1);
        return 42;
      });
      expect(value).toBe(42);
      expect(process.listeners("SIGINT")).not.toContain(foreign);
      expect(process.listeners("SIGUSR2")).toEqual(expect.arrayContaining([mine]));
      expect(process.listeners("SIGUSR2")).not.toContain(foreign);
      expect(process.listeners("exit")).toContain(onExit);
    } finally {
      process.removeListener("SIGUSR2", mine);
      process.removeListener("exit", onExit);
    }
  });

  it("removes them when what it runs throws, and rethrows", async () => {
    const foreign = (): void => {};
    const before = process.listenerCount("SIGTERM");
    await expect(
      withoutSignalHooks(async () => {
        process.on("SIGTERM", foreign);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });
});

describe("a config write leaves no signal listener of conf's", () => {
  it("in process: SIGINT, SIGTERM and SIGHUP have as many listeners after store.set as before", async () => {
    const before = counts();
    const store = new ConfigStore({ SVC_DL_CONFIG_DIR: join(temp(), "cfg") });
    await store.set("limit-rate", "5M");
    await store.unset("limit-rate");
    expect(store.get("limit-rate")).toBeUndefined();
    const after = counts();
    for (const sig of SIGNALS) expect(after[sig], sig).toBe(before[sig]);
  });

  // Each child process loads conf afresh (in process, an earlier test file may have loaded it).
  it("the real CLI: `config set` ends with the listeners of `config get`, which loads no conf", async () => {
    const dir = temp();
    const preload = join(dir, "listeners.cjs");
    const out = join(dir, "listeners.json");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.fromEntries(${JSON.stringify(SIGNALS)}.map((s) => [s, process.listenerCount(s)])))));\n`,
    );
    const env = cleanEnv({
      SVC_DL_CONFIG_DIR: join(dir, "cfg"),
      NODE_OPTIONS: `--require ${preload}`,
    });
    const listenersAfter = async (args: string[]): Promise<Record<string, number>> => {
      const r = await spawnCli(args, { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(out, "utf8"));
    };
    const read = await listenersAfter(["config", "get", "limit-rate"]);
    const written = await listenersAfter(["config", "set", "limit-rate", "5M"]);
    expect(readFileSync(join(dir, "cfg", "config.json"), "utf8")).toContain('"limit-rate": "5M"');
    expect(written).toEqual(read);
  });
});
