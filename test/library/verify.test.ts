import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, type VerifyDocument } from "../../src/index.js";
import { flipInPlace, recordAsIs, sha256Of, tempDir } from "../helpers/files.js";
import { useMockService } from "../helpers/mock.js";

// The library's verify does what `svc-dl verify DIR` and `verify --repair` do (cli-contract
// "verify", "Integrity"): size and SHA-256 against the record, every ZIP entry's CRC-32, GLB
// structure; repair ignoring size and mtime; well only when every file ends ok.

const shared = useMockService({ packSize: 256 * 1024, assetSize: 16 * 1024 });

const client = () => createClient({ baseUrl: shared.mock.baseUrl, apiKey: shared.mock.apiKey });
/** A client without a key: verify needs none unless it repairs. */
const keyless = () => createClient({ baseUrl: shared.mock.baseUrl });

/** A directory holding a pack, an asset and a second pack, downloaded through the library. */
async function downloaded(): Promise<{ dir: string; pack: string; asset: string; other: string }> {
  const dir = tempDir("svc-dl-lib-verify-");
  const c = client();
  const pack = (await c.downloadPack("desert-rocks", { dir })).path;
  const asset = (await c.downloadAsset("forest-pine-tree", { dir })).path;
  const other = (await c.downloadPack("sci-fi-props", { dir })).path;
  return { dir, pack, asset, other };
}

const statusOf = (doc: VerifyDocument, path: string) =>
  doc.items.find((i) => i.path === path)?.status;

describe("library: verify(dir)", () => {
  it("finds changed (same size and mtime), damaged (ZIP CRC-32, GLB) and missing files offline", async () => {
    const { dir, pack, asset, other } = await downloaded();
    const packSize = statSync(pack).size;
    flipInPlace(pack, 100); // changed: other bytes than recorded, same size and mtime
    flipInPlace(other, Math.floor(statSync(other).size / 2));
    recordAsIs(dir, other); // damaged: the recorded bytes fail an entry's CRC-32
    rmSync(asset);
    shared.mock.clearLog();
    const doc = await keyless().verify(dir);
    expect(shared.mock.requests).toEqual([]);
    expect(doc.dir).toBe(dir);
    expect(doc.summary).toEqual({ ok: 0, changed: 1, damaged: 1, missing: 1 });
    expect(doc.items.map((i) => [i.path, i.status])).toEqual(
      [
        [pack, "changed"],
        [asset, "missing"],
        [other, "damaged"],
      ].sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    expect(doc.items.find((i) => i.path === other)?.damage).toMatch(/CRC-32 of the data is/);
    expect(doc.items.find((i) => i.path === pack)?.bytes).toBe(packSize);
  });

  it("repair downloads every file not ok again, ignoring size and mtime, then verifies it", async () => {
    const { dir, pack, asset, other } = await downloaded();
    const served = [pack, asset, other].map(sha256Of);
    flipInPlace(pack, 100);
    flipInPlace(asset, 16); // the GLB's first chunk type
    recordAsIs(dir, asset);
    rmSync(other);
    const metrics = join(dir, "verify.prom");
    const report = join(dir, "verify.json");
    const fixed = await client().verify(dir, { repair: true, metrics, report });
    expect(fixed.summary).toEqual({ ok: 0, changed: 0, damaged: 0, missing: 0, repaired: 3 });
    expect(fixed.items.map((i) => i.error)).toEqual([null, null, null]);
    expect([pack, asset, other].map(sha256Of)).toEqual(served);
    expect(readFileSync(metrics, "utf8")).toMatch(
      /^svc_dl_exit_code\{[^}]*command="verify"[^}]*\} 0$/m,
    );
    expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({
      complete: true,
      summary: fixed.summary,
    });
    const again = await keyless().verify(dir);
    expect(again.summary).toEqual({ ok: 3, changed: 0, damaged: 0, missing: 0 });
  });

  it("a file left not ok shows in the summary and makes the metrics' exit code 1", async () => {
    const { dir, pack } = await downloaded();
    flipInPlace(pack, 100);
    const metrics = join(tempDir("svc-dl-lib-verify-prom-"), "verify.prom");
    const doc = await keyless().verify(dir, { metrics });
    expect(statusOf(doc, pack)).toBe("changed");
    expect(readFileSync(metrics, "utf8")).toMatch(/^svc_dl_exit_code\{[^}]*\} 1$/m);
  });

  it("forgetMissing drops the records of missing files", async () => {
    const { dir, asset } = await downloaded();
    rmSync(asset);
    const doc = await keyless().verify(dir, { forgetMissing: true });
    expect(statusOf(doc, asset)).toBe("forgotten");
    expect((await keyless().verify(dir)).items.map((i) => i.path)).not.toContain(asset);
  });

  it("throws what verify exits with: no DIR, repair without a key, repair with forgetMissing", async () => {
    const missingDir = join(tempDir(), "absent");
    await expect(client().verify(missingDir)).rejects.toMatchObject({
      code: "dir_not_found",
      exitCode: 2,
    });
    expect(existsSync(missingDir)).toBe(false);
    const { dir, pack } = await downloaded();
    flipInPlace(pack, 100);
    await expect(keyless().verify(dir, { repair: true })).rejects.toMatchObject({
      code: "no_api_key",
      exitCode: 3,
    });
    await expect(client().verify(dir, { repair: true, forgetMissing: true })).rejects.toMatchObject(
      { code: "usage_error", exitCode: 2 },
    );
  });
});
