import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { launchCli, tempConfigDir } from "../../helpers/cli.js";

// Prompts on a real terminal (a pseudo-terminal through util-linux `script`): what needs a
// child process. Everything else about auth is tested in-process in test/commands/auth/auth.test.ts.
let a: MockService;
beforeAll(async () => {
  a = await startMockService({ quiet: true });
});
afterAll(async () => {
  await a.close();
});

function configText(dir: string): string {
  return readFileSync(join(dir, "config.json"), "utf8");
}

/**
 * Runs `svc-dl auth login` on a pseudo-terminal, types `typed` once the prompt shows, and
 * returns everything the terminal displayed.
 */
async function loginOnTerminal(baseUrl: string, dir: string, typed: string) {
  const run = launchCli(["--base-url", baseUrl, "auth", "login"], {
    terminal: true,
    keepStdin: true,
    env: { SVC_DL_CONFIG_DIR: dir },
    timeoutMs: 20_000,
  });
  await run.waitFor("Paste your API key");
  run.child.stdin.write(typed);
  const r = await run.done;
  return { code: r.code, screen: r.stdout };
}

describe("auth login on a terminal", () => {
  it("prompts on the terminal without echoing the key", async () => {
    const dir = tempConfigDir();
    const { code, screen } = await loginOnTerminal(a.baseUrl, dir, `${a.apiKey}\r`);
    expect(code).toBe(0);
    expect(screen).toContain("Paste your API key");
    expect(screen).toContain("Logged in to");
    // the hidden answer ends its line: what follows starts on a line of its own
    // tests run without a D-Bus session: the keyring fallback is said before the key is written
    expect(screen).toMatch(
      /input hidden\): [^\n]*\n[^\n]*the OS keyring cannot be used[^\n]*\nLogged in to/,
    );
    expect(screen).not.toContain(a.apiKey);
    const stored = JSON.parse(configText(dir)) as { keys: Record<string, string> };
    expect(stored.keys[new URL(a.baseUrl).origin]).toBe(a.apiKey);
  });

  it("Ctrl-C at the prompt says cancelled, exit 130, with no download words", async () => {
    a.clearLog();
    const { code, screen } = await loginOnTerminal(a.baseUrl, tempConfigDir(), "\u0003");
    expect(code).toBe(130);
    expect(screen).toContain("cancelled");
    expect(screen).not.toMatch(/partial|resume/);
    expect(a.requests).toEqual([]);
  });
});
