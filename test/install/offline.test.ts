import { rmSync } from "node:fs";
import { join } from "node:path";
import { MockAgent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { install, makeProject } from "../helpers/install.js";

/**
 * `--offline` / `SVC_DL_OFFLINE=1` (cli-contract "Manifest, lock and cache"): no network
 * connection at all. The runs get a dispatcher that refuses every connection, and the mock
 * service's log must stay empty (the CDN's body fast path opens its own sockets).
 */

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ quiet: true, packSize: 4096 });
});
afterAll(async () => {
  await mock.close();
});

/** An undici transport that fails on any connection. */
function noNetwork(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

describe("--offline", () => {
  it("a warm cache: install --frozen --offline with no key opens no connection and succeeds", async () => {
    const project = makeProject();
    const first = await install(mock, project);
    expect(first.code, first.stderr).toBe(0);
    rmSync(join(project.root, "vendor"), { recursive: true });
    mock.clearLog();
    for (const how of [["--offline"], []]) {
      rmSync(join(project.root, "vendor"), { recursive: true, force: true });
      const r = await runCli(["install", "--frozen", "--json", ...how], {
        cwd: project.root,
        env: {
          SVC_BASE_URL: mock.baseUrl,
          SVC_DL_CACHE_DIR: project.cache,
          ...(how.length === 0 ? { SVC_DL_OFFLINE: "1" } : {}),
        },
        dispatcher: noNetwork(),
      });
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { items: { source: string }[] };
      expect(doc.items.map((i) => i.source)).toEqual(doc.items.map(() => "cache"));
    }
    expect(mock.requests).toEqual([]);
  });

  it("a cold cache: exit 8 offline naming every item that needs the network, nothing sent", async () => {
    const project = makeProject();
    mock.clearLog();
    const r = await runCli(["install", "--offline"], {
      cwd: project.root,
      env: {
        SVC_BASE_URL: mock.baseUrl,
        SVC_API_KEY: mock.apiKey,
        SVC_DL_CACHE_DIR: project.cache,
      },
      dispatcher: noNetwork(),
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain("(offline)");
    for (const name of ["sci-fi-props", "low-poly-forest", "free-sample-cube"]) {
      expect(r.stderr).toContain(name);
    }
    expect(r.stderr).toMatch(/3 of 3 items would need the network/);
    expect(r.stderr).toContain("without --offline");
    expect(mock.requests).toEqual([]);
  });

  it("--json: the error document says offline; the items carry it too", async () => {
    const project = makeProject({ dir: "a", assets: ["free-sample-cube"] });
    const r = await install(mock, project, ["--offline"]);
    expect(r.code).toBe(8);
    const doc = JSON.parse(r.stdout) as { items: { status: string; error: { code: string } }[] };
    expect(doc.items).toEqual([
      expect.objectContaining({
        status: "failed",
        error: expect.objectContaining({ code: "offline" }),
      }),
    ]);
    expect(JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}").error.code).toBe("offline");
  });

  it("other commands fail with offline before any request; SVC_DL_OFFLINE=0 leaves it off", async () => {
    mock.clearLog();
    const env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
    const get = await runCli(["pack", "get", "sci-fi-props", "-o", `${tempDir()}/`, "--offline"], {
      env,
      dispatcher: noNetwork(),
    });
    expect(get.code).toBe(8);
    expect(get.stderr).toContain("offline");
    const list = await runCli(["packs", "list"], { env: { ...env, SVC_DL_OFFLINE: "yes" } });
    expect(list.code).toBe(8);
    expect(mock.requests).toEqual([]);
    const on = await runCli(["packs", "list"], { env: { ...env, SVC_DL_OFFLINE: "0" } });
    expect(on.code).toBe(0);
  });
});
