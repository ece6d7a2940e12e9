/**
 * the secret scan. `runCli` scans every run's stdout and stderr for every
 * registered full key; the reliability suite's `run()` also scans every file under the run's
 * directory and its config directory (state files, partial metadata, lock records, config).
 * These tests prove the scans can fail (a planted key is caught), that a full workflow writes
 * no key anywhere but the config store's per-origin slot, and that a server echoing the key
 * back does not make svc-dl print it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startMockService } from "../../src/mock-server/index.js";
import { registerSecret, runCli } from "../helpers/cli.js";
import { sendApiError, startRawServer } from "../helpers/raw-server.js";
import { envFor, run, tempDir } from "./helpers/harness.js";
import { scanTreeForSecrets } from "./helpers/secret-scan.js";

const PLANTED = "svc_live_PlantedPlantedPlantedPlanted01_0badf00d";
const PLANTED_LICENSE = "SVC_PLANTED-LICENSE-0123456789ABCDEF";
registerSecret(PLANTED);
registerSecret(PLANTED_LICENSE);

describe("the scan can fail", () => {
  it("finds a key planted in a state file, a partial's metadata, or a nested file", () => {
    for (const [rel, content] of [
      [".svc-dl/state.json", JSON.stringify({ version: 1, items: {}, note: PLANTED })],
      [".svc-dl/pack-standard-x.part.json", JSON.stringify({ etag: `"${PLANTED_LICENSE}"` })],
      ["deep/er/file.bin", Buffer.concat([Buffer.alloc(100, 1), Buffer.from(PLANTED)])],
    ] as const) {
      const dir = tempDir();
      mkdirSync(join(dir, rel, ".."), { recursive: true });
      writeFileSync(join(dir, rel), content);
      expect(() => scanTreeForSecrets(dir), rel).toThrow(/secret scan: a full key/);
    }
  });

  it("in a config file, allows only API keys stored per origin under `keys`", () => {
    const write = (doc: unknown): string => {
      const dir = tempDir();
      writeFileSync(join(dir, "config.json"), JSON.stringify(doc));
      return dir;
    };
    expect(scanTreeForSecrets(write({ keys: { "https://a.example": PLANTED } }))).toBe(1);
    expect(() => scanTreeForSecrets(write({ "base-url": `https://x.example/${PLANTED}` }))).toThrow(
      /secret scan/,
    );
    expect(() =>
      scanTreeForSecrets(write({ keys: { "https://a.example": PLANTED_LICENSE } })),
    ).toThrow(/secret scan/);
    expect(() => scanTreeForSecrets(write({ keys: { [PLANTED]: "svc_live_x" } }))).toThrow(
      /secret scan/,
    );
    // the same bytes anywhere but a config store are a leak
    const state = tempDir();
    mkdirSync(join(state, ".svc-dl"));
    writeFileSync(join(state, ".svc-dl", "config.json"), JSON.stringify({ keys: { o: PLANTED } }));
    expect(() => scanTreeForSecrets(state)).toThrow(/secret scan/);
  });

  it("runCli fails a run whose stdout carries a registered key", async () => {
    const s = await startRawServer((req, res) => {
      if (req.url?.startsWith("/api/v1/orders")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: [{ note: PLANTED }] }));
      } else sendApiError(res, 404, "not_found");
    });
    try {
      const key = "svc_live_ScanScanScanScanScanScanScan0001_00c0ffee";
      await expect(
        runCli(["api", "orders"], { env: { SVC_BASE_URL: s.url, SVC_API_KEY: key } }),
      ).rejects.toThrow(/secret scan: a full key .* appeared in stdout/);
    } finally {
      await s.close();
    }
  });
});

describe("a server that echoes the key back", () => {
  const KEY = "svc_live_EchoEchoEchoEchoEchoEchoEcho0123_deadbeef";
  registerSecret(KEY);

  it.each([
    ["a JSON error message", "json"],
    ["an HTML error page", "html"],
    ["an x-request-id header", "header"],
  ] as const)("in %s: svc-dl never prints it", async (_label, how) => {
    const s = await startRawServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      if (how === "json") {
        const body = JSON.stringify({
          error: {
            code: "invalid_api_key",
            message: `key ${auth} refused`,
            request_id: "req_12345678",
          },
        });
        res.writeHead(401, { "content-type": "application/json" }).end(body);
      } else if (how === "html") {
        res.writeHead(404, { "content-type": "text/html" }).end(`<h1>No</h1><p>${auth}</p>`);
      } else {
        res.writeHead(404, { "x-request-id": auth.slice(7) }).end("nope");
      }
    });
    try {
      for (const args of [["whoami"], ["whoami", "--json"], ["asset", "get", "x", "--json"]]) {
        const r = await run(args, {
          env: { SVC_BASE_URL: s.url, SVC_API_KEY: KEY },
          cwd: tempDir(),
        });
        expect(r.code).not.toBe(0);
        expect(r.stderr).toContain("[API key]");
        expect(r.stderr).not.toContain(KEY.slice(9, 40));
      }
    } finally {
      await s.close();
    }
  });
});

describe("a whole workflow writes no key anywhere it should not", () => {
  it("login, get, sync, verify, legacy: state, partial metadata and config scanned", async () => {
    const mock = await startMockService({ packSize: 32 * 1024, assetSize: 16 * 1024 });
    try {
      envFor(mock); // registers the demo API and license keys
      const dir = tempDir();
      const configDir = tempDir("svc-dl-rel-config-");
      const base = { SVC_BASE_URL: mock.baseUrl };
      const steps: { args: string[]; env?: Record<string, string>; input?: string }[] = [
        { args: ["auth", "login", "--with-key"], input: `${mock.apiKey}\n` },
        { args: ["pack", "get", "sci-fi-props", "--json"] },
        { args: ["asset", "get", "forest-pine-tree", "-v"] },
        { args: ["packs", "sync", "library", "--json"] },
        { args: ["verify", "library", "--json"] },
        {
          args: ["legacy", "get", "--pack", "low-poly-forest", "-o", "legacy/"],
          env: { SVC_LICENSE_KEY: mock.licenseKey },
        },
        {
          args: ["legacy", "get", "--pack", "sci-fi-props", "-o", "legacy/", "--license-key-stdin"],
          input: mock.licenseKey,
        },
        { args: ["config", "list", "--json"] },
      ];
      for (const step of steps) {
        const r = await run(step.args, {
          env: { ...base, ...step.env },
          cwd: dir,
          configDir,
          ...(step.input !== undefined ? { input: step.input } : {}),
        });
        expect(r.code, `${step.args.join(" ")}: ${r.stderr}`).toBe(0);
      }
      // the scan was not vacuous: it read the state files and the config
      expect(scanTreeForSecrets(join(dir, ".svc-dl"))).toBeGreaterThan(0);
      expect(scanTreeForSecrets(join(dir, "library", ".svc-dl"))).toBeGreaterThan(0);
      const config = JSON.parse(readFileSync(join(configDir, "config.json"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(config.keys).toEqual({ [mock.baseUrl]: mock.apiKey });
      expect(JSON.stringify(config)).not.toContain(mock.licenseKey);
    } finally {
      await mock.close();
    }
  });
});
