import { statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { runCli } from "../../helpers/cli.js";
import { envFor, sha256Of, tempDir } from "../../helpers/download.js";
import { flipInPlace, recordAsIs } from "../../helpers/files.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 256 * 1024, assetSize: 16 * 1024 });
});
afterAll(async () => {
  await mock.close();
});

async function getBoth(dir: string): Promise<{ pack: string; asset: string }> {
  const env = envFor(mock);
  const p = await runCli(["pack", "get", "desert-rocks"], { env, cwd: dir });
  const a = await runCli(["asset", "get", "forest-pine-tree"], { env, cwd: dir });
  expect([p.code, a.code]).toEqual([0, 0]);
  return { pack: p.stdout.trim(), asset: a.stdout.trim() };
}

describe("verify checks every recorded ZIP's CRC-32s and every GLB's structure (cli-contract Integrity)", () => {
  it("a recorded pack whose bytes were damaged before they were recorded is `damaged`; --repair restores it", async () => {
    const dir = tempDir();
    const { pack, asset } = await getBoth(dir);
    const served = sha256Of(pack);
    flipInPlace(pack, Math.floor(statSync(pack).size / 2));
    recordAsIs(dir, pack);
    const r = await runCli(["verify", dir], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`damaged  ${pack}`);
    expect(r.stdout).toContain(`ok       ${asset}`);
    expect(r.stderr).toMatch(/entry "[^"]+" at byte \d+: CRC-32 of the data is/);
    expect(r.stderr).toContain("2 recorded files: 1 ok, 0 changed, 1 damaged, 0 missing");
    const j = await runCli(["verify", dir, "--json"], { env: {} });
    const doc = JSON.parse(j.stdout);
    expect(doc.summary).toEqual({ ok: 1, changed: 0, damaged: 1, missing: 0 });
    expect(doc.items.find((i: { path: string }) => i.path === pack).damage).toMatch(/CRC-32/);
    const fix = await runCli(["verify", dir, "--repair"], { env: envFor(mock) });
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout).toContain(`repaired ${pack}`);
    expect(sha256Of(pack)).toBe(served);
    expect((await runCli(["verify", dir], { env: {} })).code).toBe(0);
  });

  it("a recorded asset with a damaged GLB structure is `damaged`, and -q prints only it", async () => {
    const dir = tempDir();
    const { pack, asset } = await getBoth(dir);
    flipInPlace(asset, 16); // the first chunk's type
    recordAsIs(dir, asset);
    const r = await runCli(["verify", "-q", dir], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`damaged  ${asset}\n`);
    expect(r.stdout).not.toContain(pack);
    const fix = await runCli(["verify", dir, "--repair", "-q"], { env: envFor(mock) });
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout).toBe(`repaired ${asset}\n`);
  });

  it("--repair downloads a changed file again although its size and mtime match the record", async () => {
    const dir = tempDir();
    const { pack } = await getBoth(dir);
    const served = sha256Of(pack);
    flipInPlace(pack, 100);
    const r = await runCli(["verify", dir], { env: {} });
    expect(r.stdout).toContain(`changed  ${pack}`);
    const fix = await runCli(["verify", dir, "--repair"], { env: envFor(mock) });
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout).toContain(`repaired ${pack}`);
    expect(fix.stderr).not.toMatch(/up to date/);
    expect(sha256Of(pack)).toBe(served);
  });
});
