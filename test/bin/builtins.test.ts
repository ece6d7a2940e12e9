import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinsOnFirstUse } from "../../scripts/shims/builtins.js";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { builtinsLoadedBy } from "../helpers/builtins.js";
import { startTlsFronts } from "../helpers/front-server.js";
import { NO_PROXY_ENV } from "../helpers/proxy.js";
import { makeSelfSignedCert } from "../helpers/tls.js";

// The Node built-ins a run loads (docs/performance.md "Start-up"): the program's bundle reaches
// built-ins through require() and defers those a run may not need (scripts/shims/builtins.js).
// process.moduleLoadList at exit is the record: a child process per run, the bin wiring.

/** Built-ins (and their internals) that --help, whoami and an http `pack get` never need. */
const DENIED = [
  "NativeModule child_process", // commander: executable subcommands only
  "NativeModule internal/child_process",
  "NativeModule dgram",
  "NativeModule zlib", // --extract only
  "NativeModule http2", // the program speaks HTTP/1.1
  "NativeModule tls", // https only
  "NativeModule _tls_wrap",
  "NativeModule assert", // undici and signal-exit: only a failing assertion
  "NativeModule readline", // prompts only (Node's ESM loader uses internal/readline itself)
  "NativeModule timers/promises", // waits only
  "NativeModule dns", // doctor only
  "NativeModule internal/crypto/webcrypto", // an ESM import of node:crypto reads crypto.webcrypto
  "NativeModule internal/process/report", // an ESM import of node:process reads process.report
  "NativeModule internal/blocklist", // an ESM import of node:net reads net.BlockList
];

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let dir: string;
let mock: MockService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-builtins-"));
  mock = await startMockService({ quiet: true });
});

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the program against the mock in a new directory; returns its result and built-ins. */
function builtinsOf(args: string[], env: Record<string, string> = {}) {
  return builtinsLoadedBy(args, {
    env: { ...NO_PROXY_ENV, SVC_BASE_URL: mock.baseUrl, SVC_API_KEY: mock.apiKey, ...env },
    cwd: mkdtempSync(join(dir, "cwd-")),
  });
}

describe("built-ins the program loads", () => {
  it("--help, whoami and an http pack get load none of the deferred built-ins", async () => {
    // both builds of the program: the ES modules of dist/, and dist/program.cjs, which Node 20
    // runs with a code cache in the cache directory (a command's second run uses its entry)
    const cache = mkdtempSync(join(dir, "cache-"));
    const routes = [{ NODE_DISABLE_COMPILE_CACHE: "1" }, { SVC_DL_CACHE_DIR: cache }];
    for (const env of routes) {
      for (const [args, needed] of [
        [["--help"], "NativeModule process"],
        [["whoami"], "NativeModule net"],
        [["whoami"], "NativeModule net"],
        [["pack", "get", "low-poly-forest", "-o", "out/"], "NativeModule crypto"],
        [["pack", "get", "low-poly-forest", "-o", "out/"], "NativeModule crypto"],
      ] as const) {
        const { r, builtins } = await builtinsOf([...args], env);
        expect(r.code, r.stderr).toBe(0);
        // the record is complete: it holds what the run does use
        expect(builtins).toContain(needed);
        const denied = builtins.filter((m) => DENIED.includes(m));
        expect(denied, `svc-dl ${args.join(" ")} (${Object.keys(env)})`).toEqual([]);
      }
    }
    // the cached route did run: whoami and pack get left their cache entries (Node 20: one file
    // per command; Node 22+: Node's own files, one per module, under a version directory)
    const entries = readdirSync(join(cache, "compile-cache"), {
      recursive: true,
      withFileTypes: true,
    });
    expect(entries.filter((e) => e.isFile()).length).toBeGreaterThanOrEqual(2);
  });

  it("--help loads no crypto or HTTP module", async () => {
    const { r, builtins } = await builtinsOf(["--help"]);
    expect(r.code).toBe(0);
    const network = builtins.filter((m) => /^NativeModule (crypto|https?|_http_\w+|tls)$/.test(m));
    expect(network).toEqual([]);
  });

  it("deferred built-ins load when used: https, --extract, --on-item", async () => {
    const cert = makeSelfSignedCert(["IP:127.0.0.1"]);
    if (!cert) throw new Error("openssl is needed for the https fronts");
    const { api, cdn } = await startTlsFronts(mock, cert);
    try {
      const hook = join(dir, "hook.json");
      const { r, builtins } = await builtinsOf(
        ["pack", "get", "low-poly-forest", "-o", "out/", "--extract", "--on-item", `cat > ${hook}`],
        { SVC_BASE_URL: api.url, SVC_CA_FILE: cert.caFile },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(cdn.tlsHandshakes()).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(hook, "utf8"))).toMatchObject({ slug: "low-poly-forest" });
      const used = ["NativeModule tls", "NativeModule zlib", "NativeModule child_process"];
      expect(builtins.filter((m) => used.includes(m)).sort()).toEqual([...used].sort());
    } finally {
      await api.close();
      await cdn.close();
    }
  });
});

/**
 * Bundles `source` with the program's built-in rules into an ES module file, runs it in a fresh
 * Node and returns what it printed (a JSON document per line).
 */
async function runBundled(source: string): Promise<unknown[]> {
  const entry = join(dir, `entry-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(entry, source);
  const out = entry.replace(/\.mjs$/, ".bundle.mjs");
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.18",
    logLevel: "silent",
    banner: {
      js: `import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);`,
    },
    plugins: [builtinsOnFirstUse()],
  });
  const r = spawnSync(process.execPath, [out], { encoding: "utf8", cwd: ROOT });
  expect(r.stderr).toBe("");
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);
}

/** A line of the bundled program's output: whether `name` is loaded, as JSON. */
const PROBE = `const loaded = (name) => process.moduleLoadList.includes("NativeModule " + name);
const say = (x) => console.log(JSON.stringify(x));
const thrown = (f) => { try { f(); return null; } catch (e) { return e.code; } };`;

describe("the stand-ins of scripts/shims/builtins.js", () => {
  it("a passing assert() or assert.equal() loads no node:assert; a failing one throws its error", async () => {
    const lines = await runBundled(`${PROBE}
import assert from "node:assert";
assert(1); assert(true, "message"); assert.equal(typeof say, "function"); assert.equal("1", 1);
say(loaded("assert"));
const failing = (a) => [() => a(0), () => a(), () => a.equal(1, 2), () => a.equal(1)].map(thrown);
say(failing(assert));
say([loaded("assert"), failing(require("node:assert"))]);
say(assert.strictEqual === require("node:assert").strictEqual);
`);
    const codes = ["ERR_ASSERTION", "ERR_ASSERTION", "ERR_ASSERTION", "ERR_MISSING_ARGS"];
    expect(lines).toEqual([false, codes, [true, codes], true]);
  });

  it("a deferred built-in loads on the first use of an export, which is the real one", async () => {
    const lines = await runBundled(`${PROBE}
import { crc32 } from "node:zlib";
import * as cp from "node:child_process";
import { randomBytes } from "node:crypto";
say([loaded("zlib"), loaded("child_process"), loaded("crypto")]);
say(crc32("abc"));
const same = cp.spawnSync === require("node:child_process").spawnSync;
say([loaded("zlib"), loaded("child_process"), same]);
say([randomBytes(4).length, loaded("internal/crypto/webcrypto")]);
`);
    expect(lines).toEqual([[false, false, false], 0x352441c2, [true, true, true], [4, false]]);
  });

  it("an imported built-in that is not deferred is required without Node's ES module facade", async () => {
    const lines = await runBundled(`${PROBE}
import process, { env } from "node:process";
import { Socket } from "node:net";
say([typeof env, typeof process.on, typeof Socket, loaded("internal/process/report"), loaded("internal/blocklist")]);
`);
    expect(lines).toEqual([["object", "function", "function", false, false]]);
  });

  it("the program's bundle is built with these rules (no ES import of a built-in but node:module)", () => {
    const imports = new Set<string>();
    for (const name of readdirSync(join(ROOT, "dist"))) {
      if (!/^(cli|context|chunk-\w+)\.js$/.test(name)) continue;
      const text = readFileSync(join(ROOT, "dist", name), "utf8");
      if (!text.includes("THIRD-PARTY-LICENSES")) continue; // a chunk of the library's bundle
      for (const m of text.matchAll(/^import [^;]*?from "(node:[\w/]+)"/gms))
        imports.add(m[1] ?? "");
    }
    expect([...imports]).toEqual(["node:module"]);
  });
});
