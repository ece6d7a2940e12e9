import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type InstallDoc, install, makeProject, type Project } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

/**
 * A manifest or lock from a repository cannot aim writes outside the project (cli-contract
 * "Untrusted text, paths and caches"): `dir` stays inside the manifest's folder, a key named
 * twice is refused, a UTF-8 byte-order mark is accepted.
 */

const shared = useMockService({
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

const BOM = "\uFEFF";

/** A project in `<parent>/project`, so that what climbs out of it lands in a fresh `parent`. */
function nestedProject(manifest: unknown): Project & { parent: string } {
  const parent = mkdtempSync(join(tmpdir(), "svc-dl-nest-"));
  const root = join(parent, "project");
  mkdirSync(root);
  writeFileSync(join(root, "svc-dl.json"), JSON.stringify(manifest));
  return { parent, root, cache: mkdtempSync(join(tmpdir(), "svc-dl-cache-")) };
}

/** Writes `text` as the project's svc-dl.json, byte for byte. */
function writeManifest(p: Project, text: string): void {
  writeFileSync(join(p.root, "svc-dl.json"), text);
}

/** `install` ends with exit 2 and `code`, its message naming each of `texts`, no request made. */
async function expectRefused(p: Project, code: string, texts: string[], args: string[] = []) {
  shared.mock.clearLog();
  const r = await install(shared.mock, p, args);
  expect(r.code, r.stderr).toBe(2);
  const err = JSON.parse(r.stderr.trim()) as { error: { code: string; message: string } };
  expect(err.error.code).toBe(code);
  for (const text of texts) expect(err.error.message).toContain(text);
  expect(shared.mock.requests).toHaveLength(0);
}

describe("manifest dir stays inside the manifest's folder", () => {
  it.each([
    ["../outside", "climbs out"],
    ["vendor/../../outside", "climbs out"],
    ["<parent>/outside", "absolute path"],
    ["C:/outside", "drive letter"],
  ])("refuses dir %j (exit 2 invalid_manifest naming dir)", async (dir, why) => {
    const p = nestedProject({});
    writeManifest(
      p,
      JSON.stringify({ dir: dir.replace("<parent>", p.parent), assets: ["free-sample-cube"] }),
    );
    await expectRefused(p, "invalid_manifest", ["dir: ", why]);
    expect(readdirSync(p.root)).toEqual(["svc-dl.json"]);
    expect(readdirSync(p.parent)).toEqual(["project"]);
  });

  it("refuses a symlink on the way that leads out, and nothing is written there", async () => {
    const outside = mkdtempSync(join(tmpdir(), "svc-dl-outside-"));
    const p = makeProject({ dir: "vendor/assets", assets: ["free-sample-cube"] });
    symlinkSync(outside, join(p.root, "vendor"));
    await expectRefused(p, "invalid_manifest", ["dir: ", "symbolic link"]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("accepts a symlink on the way that stays inside the folder", async () => {
    const p = makeProject({ dir: "vendor/assets", assets: ["free-sample-cube"] });
    mkdirSync(join(p.root, "real"));
    symlinkSync(join(p.root, "real"), join(p.root, "vendor"));
    const r = await install(shared.mock, p);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(p.root, "real", "assets", "free-sample-cube.glb"))).toBe(true);
  });
});

describe("a key named twice is refused, never last-wins", () => {
  it('refuses {"dir":"vendor","dir":"../escaped"} naming the key and its JSON path', async () => {
    const p = nestedProject({});
    writeManifest(p, '{"dir":"vendor","dir":"../escaped","assets":["free-sample-cube"]}\n');
    await expectRefused(p, "invalid_manifest", ['dir: duplicate key "dir"']);
    expect(readdirSync(p.parent)).toEqual(["project"]);
    expect(readdirSync(p.root)).toEqual(["svc-dl.json"]);
  });

  it("refuses a duplicate inside an entry, naming packs[0].edition", async () => {
    const p = makeProject();
    writeManifest(
      p,
      '{"dir":"vendor","packs":[{"slug":"sci-fi-props","edition":"standard","edition":"authoring"}]}',
    );
    await expectRefused(p, "invalid_manifest", ['packs[0].edition: duplicate key "edition"']);
  });

  it("refuses a lock entry naming sha256 twice (invalid_lock, items[0].sha256)", async () => {
    const p = makeProject({ dir: "vendor", assets: ["free-sample-cube"] });
    expect((await install(shared.mock, p)).code).toBe(0);
    const lockPath = join(p.root, "svc-dl.lock");
    const lock = readFileSync(lockPath, "utf8");
    writeFileSync(
      lockPath,
      lock.replace(/"sha256": "/, `"sha256": "${"0".repeat(64)}",\n"sha256": "`),
    );
    await expectRefused(
      p,
      "invalid_lock",
      ['items[0].sha256: duplicate key "sha256"'],
      ["--frozen"],
    );
  });
});

describe("a UTF-8 byte-order mark is accepted", () => {
  it("in svc-dl.json and in svc-dl.lock", async () => {
    const p = makeProject();
    writeManifest(p, `${BOM}${JSON.stringify({ dir: "vendor", assets: ["free-sample-cube"] })}\n`);
    const first = await install(shared.mock, p);
    expect(first.code, first.stderr).toBe(0);
    const lockPath = join(p.root, "svc-dl.lock");
    writeFileSync(lockPath, `${BOM}${readFileSync(lockPath, "utf8")}`);
    shared.mock.clearLog();
    const frozen = await install(shared.mock, p, ["--frozen"]);
    expect(frozen.code, frozen.stderr).toBe(0);
    const doc = JSON.parse(frozen.stdout) as InstallDoc;
    expect(doc.items.map((i) => i.slug)).toEqual(["free-sample-cube"]);
    expect(shared.mock.requests).toHaveLength(0);
  });
});
