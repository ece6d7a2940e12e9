import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockService, startMockService } from "../../../src/mock-server/index.js";
import { runCli } from "../../helpers/cli.js";
import { envFor, tempDir } from "../../helpers/download.js";

let mock: MockService;
beforeAll(async () => {
  mock = await startMockService({ packSize: 64 * 1024, assetSize: 16 * 1024 });
});
afterAll(async () => {
  await mock.close();
});

async function fill(dir: string): Promise<{ pack: string; asset: string; authoring: string }> {
  const env = envFor(mock);
  const p = await runCli(["pack", "get", "low-poly-forest"], { env, cwd: dir });
  const a = await runCli(["asset", "get", "forest-pine-tree"], { env, cwd: dir });
  const b = await runCli(["pack", "get", "low-poly-forest", "--edition", "authoring"], {
    env,
    cwd: dir,
  });
  expect([p.code, a.code, b.code]).toEqual([0, 0, 0]);
  return { pack: p.stdout.trim(), asset: a.stdout.trim(), authoring: b.stdout.trim() };
}

describe("verify", () => {
  it("reports every recorded file ok and exits 0, offline", async () => {
    const dir = tempDir();
    const files = await fill(dir);
    mock.clearLog();
    const r = await runCli(["verify", dir], { env: { SVC_BASE_URL: "http://127.0.0.1:9" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`ok       ${files.pack}`);
    expect(r.stdout).toContain(`ok       ${files.asset}`);
    expect(r.stderr).toContain("3 recorded files: 3 ok, 0 changed, 0 missing");
    expect(mock.requests.length).toBe(0);
  });

  it("lists changed and missing files and exits 1; --json per the contract", async () => {
    const dir = tempDir();
    const files = await fill(dir);
    appendFileSync(files.pack, "x");
    rmSync(files.asset);
    const r = await runCli(["verify"], { env: {}, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`changed  ${files.pack}`);
    expect(r.stdout).toContain(`missing  ${files.asset}`);
    expect(r.stdout).toContain(`ok       ${files.authoring}`);
    const j = await runCli(["verify", ".", "--json"], { env: {}, cwd: dir });
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.stdout);
    expect(doc.dir).toBe(dir);
    const byPath = Object.fromEntries(
      (doc.items as { path: string; status: string; sha256: string | null }[]).map((i) => [
        i.path,
        i,
      ]),
    );
    expect(byPath[files.pack]?.status).toBe("changed");
    expect(byPath[files.pack]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(byPath[files.asset]).toEqual({
      path: files.asset,
      status: "missing",
      sha256: null,
      bytes: null,
      kind: "asset",
      slug: "forest-pine-tree",
      edition: null,
    });
    expect(byPath[files.authoring]?.status).toBe("ok");
    expect(Object.keys(doc)).toEqual(["dir", "items", "summary", "complete"]);
    expect(doc.summary).toEqual({ ok: 1, changed: 1, damaged: 0, missing: 1 });
  });

  it("exits 0 with 'nothing recorded' for a directory svc-dl never downloaded into", async () => {
    const empty = tempDir();
    const r = await runCli(["verify", join(empty, ".")], { env: {} });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("nothing recorded");
    const j = await runCli(["verify", empty, "--json"], { env: {} });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({
      dir: empty,
      items: [],
      summary: { ok: 0, changed: 0, damaged: 0, missing: 0 },
      complete: true,
    });
  });

  it("a DIR that does not exist is a usage error (exit 2), not 'nothing recorded'", async () => {
    const missing = join(tempDir(), "typo");
    const r = await runCli(["verify", missing], { env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing} does not exist`);
    expect(r.stderr).not.toContain("nothing recorded");
    const j = await runCli(["verify", missing, "--json"], { env: {} });
    expect(j.code).toBe(2);
    expect(j.stderr).toContain('"code":"dir_not_found"');
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "x");
    expect((await runCli(["verify", file], { env: {} })).code).toBe(2);
  });
});

describe("verify: one item, one record", () => {
  it("a renamed then deleted file is forgotten once the item is downloaded again", async () => {
    const dir = tempDir();
    const env = envFor(mock);
    const renamed = await runCli(["pack", "get", "low-poly-forest", "-o", "renamed.zip"], {
      env,
      cwd: dir,
    });
    expect(renamed.code).toBe(0);
    rmSync(join(dir, "renamed.zip"));
    const again = await runCli(["pack", "get", "low-poly-forest"], { env, cwd: dir });
    expect(again.code).toBe(0);
    const r = await runCli(["verify", dir], { env: {} });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).not.toContain("renamed.zip");
    expect(r.stderr).toContain("1 recorded file: 1 ok, 0 changed, 0 missing");
  });

  it("--forget-missing drops the records of deleted files, and the 'missing' hint names it", async () => {
    const dir = tempDir();
    const files = await fill(dir);
    rmSync(files.asset);
    appendFileSync(files.pack, "x");
    const before = await runCli(["verify", dir], { env: {} });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`svc-dl verify --forget-missing ${dir}`);

    const forget = await runCli(["verify", dir, "--forget-missing"], { env: {} });
    expect(forget.code).toBe(1); // the changed pack is still reported
    expect(forget.stdout).toContain(`forgotten ${files.asset}`);
    expect(forget.stdout).toContain(`changed  ${files.pack}`);

    const after = await runCli(["verify", dir, "--json"], { env: {} });
    const doc = JSON.parse(after.stdout) as { items: { path: string; status: string }[] };
    expect(doc.items.map((i) => i.path).sort()).toEqual([files.authoring, files.pack].sort());
    expect(after.code).toBe(1);

    const both = await runCli(["verify", dir, "--forget-missing", "--repair"], { env: {} });
    expect(both.code).toBe(2);
  });
});
