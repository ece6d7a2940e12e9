import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { builtinsLoadedBy } from "../helpers/builtins.js";
import { spawnCli } from "../helpers/cli.js";
import { startForwardProxy } from "../helpers/proxy.js";

// Start-up behaviour: `--version` and `--help` work and load no HTTP, config,
// schema or colour module. No timing assertions here: timings live in `npm run bench`.

const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

/** Modules that `--help`/`--version` must never load (they cost 40–70 ms each). */
const HEAVY = [
  /\/node_modules\/undici\//,
  /\/node_modules\/zod\//,
  /\/node_modules\/conf\//,
  /\/node_modules\/chalk\//,
  /\/src\/api\//,
  /\/src\/config\/(?!settable-keys\.ts$)/, // the list of key names is help text
  /\/src\/download\//,
];

/**
 * The modules behind the loaded URLs: each URL, and for a file of dist/ the modules esbuild
 * put into it (its `// node_modules/…` and `// src/…` comments; the program's npm dependencies
 * are inlined there), as `/node_modules/…` and `/src/…` paths.
 */
function modulesIn(urls: string[]): string[] {
  const out: string[] = [];
  for (const url of urls) {
    out.push(url);
    if (!url.startsWith("file:") || !url.includes("/dist/")) continue;
    const text = readFileSync(fileURLToPath(url), "utf8");
    for (const m of text.matchAll(/^\/\/ ((?:node_modules|src)\/\S+)$/gm)) out.push(`/${m[1]}`);
  }
  return out;
}

let dir: string;
let mock: MockService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-startup-"));
  // A module-resolution hook that appends every resolved URL to $SVC_TEST_TRACE, synchronously
  // on the hooks thread before the import proceeds, so the file is complete at exit.
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(out, r.url + "\\n");
  return r;
}
`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";
register("./hooks.mjs", import.meta.url, { data: { out: process.env.SVC_TEST_TRACE } });
`,
  );
  mock = await startMockService({ quiet: true });
});

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs svc-dl with the tracing hook; returns the result and the resolved module URLs. The
 * program's ES modules (its module graph, what these tests are about): on Node 20 a command
 * otherwise runs the same modules bundled into dist/program.cjs with a code cache, which an
 * import hook cannot see.
 */
async function traced(args: string[], env: Record<string, string> = {}) {
  const trace = join(dir, `trace-${args.join("_").replace(/[^a-z_-]/gi, "")}.txt`);
  writeFileSync(trace, "");
  const r = await spawnCli(args, {
    env: {
      ...env,
      NODE_DISABLE_COMPILE_CACHE: "1",
      NODE_OPTIONS: `--import ${join(dir, "register.mjs")}`,
      SVC_TEST_TRACE: trace,
    },
  });
  const urls = [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))];
  return { r, urls, loaded: modulesIn(urls) };
}

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

  it("--help and --version load no HTTP, config, schema, colour or download module", async () => {
    for (const args of [
      ["--help"],
      ["--version"],
      ["--no-color", "--version"],
      ["whoami", "--help"],
    ]) {
      const { r, loaded } = await traced(args);
      expect(r.code).toBe(0);
      // the trace works: the entry point itself was recorded
      expect(loaded.some((u) => u.endsWith("/bin/svc-dl.js"))).toBe(true);
      const heavy = loaded.filter((u) => HEAVY.some((re) => re.test(u)));
      expect(heavy, `svc-dl ${args.join(" ")} loaded ${heavy.join(", ")}`).toEqual([]);
    }
  });

  it("the lone --version fast path does not even load commander", async () => {
    const { r, loaded } = await traced(["--version"]);
    expect(r.code).toBe(0);
    expect(loaded.filter((u) => u.includes("/node_modules/"))).toEqual([]);
  });

  it("the trace detects heavy modules when a command really uses them (control)", async () => {
    const { r, loaded } = await traced(["whoami"], {
      SVC_BASE_URL: mock.baseUrl,
      SVC_API_KEY: mock.apiKey,
    });
    expect(r.code).toBe(0);
    expect(loaded.some((u) => /\/node_modules\/undici\//.test(u))).toBe(true);
    expect(loaded.some((u) => /\/node_modules\/chalk\//.test(u))).toBe(true);
    expect(loaded.some((u) => /\/src\/api\//.test(u))).toBe(true);
  });

  it("a command that only reads the config file loads no conf (it is loaded to write)", async () => {
    const config = mkdtempSync(join(dir, "config-"));
    writeFileSync(join(config, "config.json"), JSON.stringify({ "base-url": mock.baseUrl }));
    const env = { SVC_DL_CONFIG_DIR: config, SVC_API_KEY: mock.apiKey };
    const { r, loaded } = await traced(["whoami"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(loaded.filter((u) => /\/node_modules\/(conf|ajv|semver)\//.test(u))).toEqual([]);
    // control: writing the file does load it
    const set = await traced(["config", "set", "limit-rate", "5M"], env);
    expect(set.r.code, set.r.stderr).toBe(0);
    expect(set.loaded.some((u) => /\/node_modules\/conf\//.test(u))).toBe(true);
  });

  it("whoami does not load Node's HTTP/2 (the program speaks HTTP/1.1 only)", async () => {
    const { r, builtins } = await builtinsLoadedBy(["whoami"], {
      env: { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(builtins).toContain("NativeModule net"); // the list is complete: the request's socket
    expect(builtins.filter((m) => /http2/.test(m))).toEqual([]);
  });

  it("whoami and pack get load a few bundle files and nothing from node_modules", async () => {
    const env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
    for (const args of [["whoami"], ["pack", "get", "low-poly-forest", "-o", `${dir}/get/`]]) {
      const { r, urls } = await traced(args, env);
      expect(r.code, r.stderr).toBe(0);
      // the npm dependencies are inlined into dist/ (scripts/build.js): no resolution, no
      // package.json lookups, no hundreds of small files to read and compile at each start
      expect(urls.filter((u) => u.includes("/node_modules/"))).toEqual([]);
      const files = urls.filter((u) => u.startsWith("file:"));
      expect(files.length).toBeGreaterThan(2);
      expect(files.length, files.join("\n")).toBeLessThanOrEqual(80);
    }
  });

  it("pack get without --extract loads no extractor (control: with --extract it does)", async () => {
    const env = { SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey };
    const one = await traced(["pack", "get", "low-poly-forest", "-o", `${dir}/one/`], env);
    expect(one.r.code, one.r.stderr).toBe(0);
    expect(one.loaded.some((u) => u.endsWith("/src/download/engine.ts"))).toBe(true);
    expect(one.loaded.filter((u) => /\/src\/extract\//.test(u))).toEqual([]);
    const args = ["pack", "get", "low-poly-forest", "--extract", "-o", `${dir}/all/`];
    const all = await traced(args, env);
    expect(all.r.code, all.r.stderr).toBe(0);
    expect(all.loaded.some((u) => u.endsWith("/src/extract/extract.ts"))).toBe(true);
  });
});
