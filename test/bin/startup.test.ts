import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { spawnCli } from "../helpers/cli.js";
import { startForwardProxy } from "../helpers/proxy.js";

// Start-up behaviour of the built program (bin/svc-dl.js → dist/): `--version`, `--help`, a
// usage error and a download through a proxy work. No timings or module lists here: the
// start-up budget is a row of `npm run bench` (docs/performance.md).

const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

/** The undici version the build inlines into the program. */
const undiciVersion = (
  JSON.parse(
    readFileSync(new URL("../../node_modules/undici/package.json", import.meta.url), "utf8"),
  ) as { version: string }
).version;

let dir: string;
let mock: MockService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-startup-"));
  mock = await startMockService({ quiet: true });
});

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("svc-dl start-up", () => {
  it("the bundled program downloads through a proxy (its slim undici keeps CONNECT)", async () => {
    const proxy = await startForwardProxy();
    try {
      const r = await spawnCli(["--proxy", proxy.url, "pack", "get", "low-poly-forest"], {
        env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
        cwd: mkdtempSync(join(dir, "proxy-")),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.connects).toContain(new URL(mock.baseUrl).host);
    } finally {
      await proxy.close();
    }
  });

  it("the bundled program writes its config file (conf, without the schema and migration parts the bundle leaves out)", async () => {
    const env = { SVC_DL_CONFIG_DIR: mkdtempSync(join(dir, "config-")) };
    const set = await spawnCli(["config", "set", "limit-rate", "2M"], { env });
    expect(set.code, set.stderr).toBe(0);
    const get = await spawnCli(["config", "get", "limit-rate", "--json"], { env });
    expect(JSON.parse(get.stdout)).toEqual({ key: "limit-rate", value: "2M" });
    const unset = await spawnCli(["config", "unset", "limit-rate"], { env });
    expect(unset.code, unset.stderr).toBe(0);
  });

  it("the bundled program writes --metrics (its prom-client subset)", async () => {
    const cwd = mkdtempSync(join(dir, "metrics-"));
    const r = await spawnCli(["pack", "get", "low-poly-forest", "--metrics", "run.prom"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
      cwd,
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(cwd, "run.prom"), "utf8");
    expect(text).toMatch(/^# TYPE svc_dl_exit_code gauge$/m);
    expect(text).toMatch(/^svc_dl_exit_code\{[^}]*command="pack get"[^}]*\} 0$/m);
  });

  it("--version and -V print package.json's version and exit 0", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await spawnCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe("");
    }
  });

  it("--version with other global options (the commander path) prints the same", async () => {
    const r = await spawnCli(["--no-color", "--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe("");
  });

  it("--help prints usage, commands and examples to stdout and exits 0", async () => {
    const r = await spawnCli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc-dl \[options\] \[command\]/);
    expect(r.stdout).toContain("whoami");
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("--version");
    expect(r.stderr).toBe("");
  });

  it("a usage error (chalk loaded lazily on the error path) exits 2 naming usage_error", async () => {
    const r = await spawnCli(["--no-such-flag"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage_error");
    expect(r.stdout).toBe("");
  });

  it("--version --verbose (either order, -v -V too) names Node and the bundled undici", async () => {
    for (const args of [
      ["--version", "--verbose"],
      ["-v", "-V"],
    ]) {
      const r = await spawnCli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        `${version}\nnode ${process.versions.node} (${process.platform} ${process.arch})\nundici ${undiciVersion} (bundled)\n`,
      );
    }
  });

  it("doctor names the bundled undici in its node check", async () => {
    const r = await spawnCli(["doctor", "--json"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
    });
    const doc = JSON.parse(r.stdout) as { checks: { name: string; finding: string }[] };
    expect(doc.checks.find((c) => c.name === "node")?.finding).toBe(
      `Node ${process.versions.node}, bundled undici ${undiciVersion}`,
    );
  });
});
