import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import type { MockService } from "../../src/mock-server/types.js";
import { spawnCli } from "../helpers/cli.js";

// The program never runs code from a cache (cli-contract "Untrusted text, paths and caches"):
// V8 accepts cached code made from another source of the same length, so an entry planted in a
// directory another party can write (SVC_DL_CACHE_DIR is restored by CI caches) would run as
// svc-dl. bin/svc-dl.js turns on no compile cache, anywhere, with or without CI.

let dir: string;
let mock: MockService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-dl-no-code-cache-"));
  // at exit, the compile-cache directory Node uses for the process (Node 22.8+), or null
  writeFileSync(
    join(dir, "report.mjs"),
    `import * as nodeModule from "node:module";
import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(process.env.SVC_TEST_REPORT, JSON.stringify(nodeModule.getCompileCacheDir?.() ?? null)));
`,
  );
  mock = await startMockService({ quiet: true });
});

afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every file under `root` with its bytes, as `path → text`. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile())
      out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), "latin1");
  }
  return out;
}

/**
 * A cache directory with code-cache entries an attacker could plant: the program's former
 * layout (`compile-cache/program-<hash>-<command>.v8`) and Node's own (a directory per Node
 * version with entries in it), and the same at the top level.
 */
function plantedCache(): string {
  const cache = mkdtempSync(join(dir, "cache-"));
  const forged = Buffer.from("forged V8 code cache entry \x00\x01\x02").toString("latin1");
  mkdirSync(join(cache, "compile-cache", `v${process.versions.node}-x64-00000000-0`), {
    recursive: true,
  });
  writeFileSync(join(cache, "compile-cache", `program-${"a".repeat(64)}-whoami.v8`), forged);
  writeFileSync(
    join(cache, "compile-cache", `v${process.versions.node}-x64-00000000-0`, "1234abcd"),
    forged,
  );
  writeFileSync(join(cache, "1234abcd"), forged);
  return cache;
}

describe("no code cache", () => {
  for (const ci of [undefined, "true"]) {
    it(`whoami and pack get use no compile cache and leave a planted one untouched (CI ${ci ?? "unset"})`, async () => {
      for (const args of [["whoami"], ["pack", "get", "low-poly-forest", "-o", `${dir}/get/`]]) {
        const cache = plantedCache();
        const before = snapshot(cache);
        const report = join(dir, "report.json");
        writeFileSync(report, '"not written"');
        const r = await spawnCli(args, {
          env: {
            SVC_BASE_URL: mock.baseUrl,
            SVC_API_KEY: mock.apiKey,
            SVC_DL_CACHE_DIR: cache,
            CI: ci,
            NODE_COMPILE_CACHE: undefined,
            NODE_DISABLE_COMPILE_CACHE: undefined,
            NODE_OPTIONS: `--import ${join(dir, "report.mjs")}`,
            SVC_TEST_REPORT: report,
          },
        });
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(readFileSync(report, "utf8")), args.join(" ")).toBeNull();
        expect(snapshot(cache)).toEqual(before);
      }
    });
  }
});
