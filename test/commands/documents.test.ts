import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AssetsListDocumentSchema,
  CacheCleanDocumentSchema,
  CacheDirDocumentSchema,
  ErrorLineSchema,
  GetDocumentSchema,
  GetManyDocumentSchema,
  InstallDocumentSchema,
  SyncDocumentSchema,
  VerifyDocumentSchema,
} from "../../src/documents.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/files.js";
import { useMockService } from "../helpers/mock.js";

/**
 * cli-contract "Streams and output" (binary data never to a terminal) and "JSON documents":
 * every download command's `--json` document checked against its schema in src/model.ts.
 */

const shared = useMockService({ packSize: 24 * 1024, assetSize: 8 * 1024 });

function errorLine(stderr: string) {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  return ErrorLineSchema.parse(JSON.parse(lines[0] ?? ""));
}

describe("-o - with stdout a terminal (cli-contract: Streams and output)", () => {
  const cases: [string, string[], Record<string, string>][] = [
    ["pack get", ["pack", "get", "low-poly-forest", "-o", "-"], {}],
    ["asset get", ["asset", "get", "free-sample-cube", "-o", "-"], {}],
    [
      "legacy get",
      ["legacy", "get", "--pack", "low-poly-forest", "-o", "-"],
      { SVC_LICENSE_KEY: `SVC_${"K".repeat(24)}` },
    ],
  ];
  for (const [name, args, env] of cases) {
    it(`${name} is refused with exit 2 (binary_to_terminal) before any request`, async () => {
      const r = await runCli([...args, "--json"], {
        env: { ...shared.env(), ...env },
        stdoutIsTTY: true,
      });
      // `-o -` with --json is its own usage error; without --json the guard answers
      expect(r.code).toBe(2);
      const plain = await runCli(args, {
        env: { ...shared.env(), ...env },
        stdoutIsTTY: true,
        stdinIsTTY: true,
      });
      expect(plain.code).toBe(2);
      expect(plain.stdout).toBe("");
      expect(plain.stderr).toContain("binary_to_terminal");
      expect(plain.stderr).toMatch(/redirect stdout/);
      expect(shared.mock.requests).toEqual([]);
    });
  }

  it("the refusal names its code on stderr, also with --quiet", async () => {
    const r = await runCli(["asset", "get", "free-sample-cube", "-o", "-", "--quiet"], {
      env: shared.env(),
      stdoutIsTTY: true,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(code binary_to_terminal)");
  });

  it("-o - without a terminal writes the bytes to stdout", async () => {
    const r = await runCli(["asset", "get", "free-sample-cube", "-o", "-"], {
      env: shared.env(),
      stdoutIsTTY: false,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stderr).not.toContain("binary_to_terminal");
  });
});

describe("--json documents match their schemas (cli-contract: JSON documents)", () => {
  it("pack get with one slug, then again (up-to-date)", async () => {
    const dir = tempDir();
    const args = ["pack", "get", "low-poly-forest", "-o", `${dir}/`, "--json"];
    const first = await runCli(args, { env: shared.env() });
    expect(first.code, first.stderr).toBe(0);
    expect(GetDocumentSchema.parse(JSON.parse(first.stdout)).status).toBe("downloaded");
    const again = await runCli(args, { env: shared.env() });
    expect(GetDocumentSchema.parse(JSON.parse(again.stdout)).status).toBe("up-to-date");
  });

  it("pack get with several slugs, one of them failing (exit 1, get_incomplete)", async () => {
    const dir = tempDir();
    const r = await runCli(
      ["pack", "get", "low-poly-forest", "no-such-pack", "-o", `${dir}/`, "--json"],
      { env: shared.env() },
    );
    expect(r.code).toBe(1);
    const doc = GetManyDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.summary).toEqual({ downloaded: 1, up_to_date: 0, failed: 1 });
    expect(doc.items.map((i) => i.status)).toEqual(["downloaded", "failed"]);
    expect(errorLine(r.stderr.split("\n").slice(-2).join("\n")).error.code).toBe("get_incomplete");
  });

  it("packs sync (with a filter, dry run, real run) and verify", async () => {
    const dir = tempDir();
    const args = ["packs", "sync", dir, "--include", "low-poly-*", "--json"];
    const dry = await runCli([...args, "--dry-run"], { env: shared.env() });
    expect(dry.code, dry.stderr).toBe(0);
    const planned = SyncDocumentSchema.parse(JSON.parse(dry.stdout));
    expect(planned.items.map((i) => i.status)).toEqual(["would-download"]);
    expect(planned.summary.filtered).toBeGreaterThan(0);
    const real = await runCli(args, { env: shared.env() });
    expect(real.code, real.stderr).toBe(0);
    const done = SyncDocumentSchema.parse(JSON.parse(real.stdout));
    expect(done.items.map((i) => i.status)).toEqual(["downloaded"]);
    const verify = await runCli(["verify", dir, "--json"], { env: shared.env() });
    expect(verify.code, verify.stderr).toBe(0);
    const checked = VerifyDocumentSchema.parse(JSON.parse(verify.stdout));
    expect(checked.items.map((i) => i.status)).toEqual(["ok"]);
  });

  it("pack get and packs sync with --extract carry `extracted`", async () => {
    const dir = tempDir();
    const get = await runCli(
      ["pack", "get", "low-poly-forest", "-o", `${dir}/`, "--extract", "--json"],
      { env: shared.env() },
    );
    expect(get.code, get.stderr).toBe(0);
    expect(GetDocumentSchema.parse(JSON.parse(get.stdout)).extracted?.status).toBe("extracted");
    const sync = await runCli(
      ["packs", "sync", dir, "--include", "low-poly-forest", "--extract", "--json"],
      { env: shared.env() },
    );
    expect(sync.code, sync.stderr).toBe(0);
    const doc = SyncDocumentSchema.parse(JSON.parse(sync.stdout));
    expect(doc.items.map((i) => [i.status, i.extracted?.status])).toEqual([
      ["up-to-date", "unchanged"],
    ]);
  });

  it("install", async () => {
    const root = tempDir();
    writeFileSync(
      join(root, "svc-dl.json"),
      JSON.stringify({
        dir: "vendor",
        packs: [{ slug: "low-poly-forest", extract: true }],
        assets: ["free-sample-cube"],
      }),
    );
    const env = { ...shared.env(), SVC_DL_CACHE_DIR: tempDir() };
    const r = await runCli(["install", "--json"], { env, cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const doc = InstallDocumentSchema.parse(JSON.parse(r.stdout));
    expect(doc.items.map((i) => [i.kind, i.status, i.source, i.extracted?.status])).toEqual([
      ["pack", "downloaded", "network", "extracted"],
      ["asset", "downloaded", "network", undefined],
    ]);
  });

  it("assets list, cache dir and cache clean", async () => {
    const assets = await runCli(["assets", "list", "--json"], { env: shared.env() });
    expect(assets.code, assets.stderr).toBe(0);
    const list = AssetsListDocumentSchema.parse(JSON.parse(assets.stdout));
    expect(list.map((a) => a.slug)).toContain("free-sample-cube");
    const cache = tempDir();
    const env = { SVC_DL_CACHE_DIR: cache };
    const dir = await runCli(["cache", "dir", "--json"], { env });
    expect(dir.code, dir.stderr).toBe(0);
    expect(CacheDirDocumentSchema.parse(JSON.parse(dir.stdout)).dir).toBe(cache);
    const clean = await runCli(["cache", "clean", "--json"], { env });
    expect(clean.code, clean.stderr).toBe(0);
    expect(CacheCleanDocumentSchema.parse(JSON.parse(clean.stdout))).toEqual({
      dir: cache,
      removed: 0,
    });
  });
});
