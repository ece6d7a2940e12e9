import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractFolderName, extractPack } from "../../src/extract/extract.js";
import { readExtractedManifest } from "../../src/extract/manifest.js";
import { HOSTILE_ARCHIVE_KINDS, hostileArchive } from "../../src/mock-server/hostile-zip.js";
import { buildZip, type RawZipEntry } from "../../src/mock-server/zip-builder.js";

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-dl-extract-"));
  dir = join(root, "out");
  mkdirSync(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes an archive into `dir` and extracts it. */
function put(file: string, entries: RawZipEntry[] | Buffer) {
  const bytes = Buffer.isBuffer(entries) ? entries : buildZip(entries);
  writeFileSync(join(dir, file), bytes);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { sha256, run: () => extractPack({ dir, file, sha256 }) };
}

const text = (s: string) => Buffer.from(s, "utf8");
const V1: RawZipEntry[] = [
  { name: "forest/", data: Buffer.alloc(0) },
  { name: "forest/README.txt", data: text("v1 readme\n"), method: 0 },
  { name: "forest/models/oak.glb", data: Buffer.alloc(5000, 7) },
  { name: "forest/models/old-only.glb", data: text("only in v1") },
];
const V2: RawZipEntry[] = [
  { name: "forest/README.txt", data: text("v2 readme\n") },
  { name: "forest/models/oak.glb", data: Buffer.alloc(6000, 8), method: 0 },
  { name: "forest/textures/bark.png", data: text("png") },
];

/** Every path under `base`, relative, sorted (folders end with /). */
function tree(base: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const d of readdirSync(join(base, rel), { withFileTypes: true })) {
      const r = rel === "" ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) {
        out.push(`${r}/`);
        walk(r);
      } else out.push(r);
    }
  };
  walk("");
  return out.sort();
}

describe("extractPack", () => {
  it("extracts stored and deflated entries in nested folders into <file without .zip>/", async () => {
    const a = put("forest-pack.zip", V1);
    const result = await a.run();
    expect(result).toEqual({ status: "extracted", path: join(dir, "forest-pack"), files: 3 });
    expect(tree(join(dir, "forest-pack"))).toEqual([
      "forest/",
      "forest/README.txt",
      "forest/models/",
      "forest/models/oak.glb",
      "forest/models/old-only.glb",
    ]);
    expect(readFileSync(join(dir, "forest-pack/forest/models/oak.glb"))).toEqual(
      Buffer.alloc(5000, 7),
    );
    expect(existsSync(join(dir, "forest-pack.zip"))).toBe(true);
    expect(readExtractedManifest(dir).folders["forest-pack"]?.sha256).toBe(a.sha256);
    expect(readdirSync(join(dir, ".svc-dl")).filter((n) => n.startsWith("extract-"))).toEqual([]);
  });

  it("does not extract an unchanged archive again", async () => {
    const a = put("forest-pack.zip", V1);
    await a.run();
    writeFileSync(join(dir, "forest-pack/forest/README.txt"), "edited by the user");
    expect((await a.run()).status).toBe("unchanged");
    expect(readFileSync(join(dir, "forest-pack/forest/README.txt"), "utf8")).toBe(
      "edited by the user",
    );
  });

  it("extracts again when an extracted file was deleted", async () => {
    const a = put("forest-pack.zip", V1);
    await a.run();
    rmSync(join(dir, "forest-pack/forest/models/oak.glb"));
    expect((await a.run()).status).toBe("extracted");
    expect(existsSync(join(dir, "forest-pack/forest/models/oak.glb"))).toBe(true);
  });

  it("a new version replaces exactly the old files and keeps what the user added", async () => {
    await put("forest-pack.zip", V1).run();
    writeFileSync(join(dir, "forest-pack/forest/models/my-notes.txt"), "mine");
    mkdirSync(join(dir, "forest-pack/my-folder"));
    writeFileSync(join(dir, "forest-pack/my-folder/keep.txt"), "keep");
    symlinkSync("/etc/passwd", join(dir, "forest-pack/my-link"));
    const b = put("forest-pack.zip", V2);
    expect((await b.run()).status).toBe("extracted");
    expect(tree(join(dir, "forest-pack"))).toEqual([
      "forest/",
      "forest/README.txt",
      "forest/models/",
      "forest/models/my-notes.txt",
      "forest/models/oak.glb",
      "forest/textures/",
      "forest/textures/bark.png",
      "my-folder/",
      "my-folder/keep.txt",
      "my-link",
    ]);
    expect(readFileSync(join(dir, "forest-pack/forest/README.txt"), "utf8")).toBe("v2 readme\n");
    expect(readExtractedManifest(dir).folders["forest-pack"]?.files).toEqual([
      "forest/README.txt",
      "forest/models/oak.glb",
      "forest/textures/bark.png",
    ]);
  });

  it("a user file on a path the archive fills: identical is adopted, different is file_exists", async () => {
    mkdirSync(join(dir, "forest-pack/forest"), { recursive: true });
    writeFileSync(join(dir, "forest-pack/forest/README.txt"), "v1 readme\n");
    await expect(put("forest-pack.zip", V1).run()).resolves.toMatchObject({ status: "extracted" });
    rmSync(join(dir, ".svc-dl/extracted.json"));
    writeFileSync(join(dir, "forest-pack/forest/README.txt"), "user's own readme");
    await expect(put("forest-pack.zip", V2).run()).rejects.toMatchObject({
      code: "file_exists",
      exitCode: 8,
    });
    expect(readFileSync(join(dir, "forest-pack/forest/README.txt"), "utf8")).toBe(
      "user's own readme",
    );
  });

  it("refuses to extract through a symlink in the folder's place", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, "forest-pack"));
    await expect(put("forest-pack.zip", V1).run()).rejects.toMatchObject({ code: "file_exists" });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("refuses a .svc-dl that others may write, as every command does, and writes nothing", async () => {
    mkdirSync(join(dir, ".svc-dl"));
    chmodSync(join(dir, ".svc-dl"), 0o777);
    await expect(put("forest-pack.zip", V1).run()).rejects.toMatchObject({
      code: "unsafe_state_dir",
    });
    expect(readdirSync(dir).sort()).toEqual([".svc-dl", "forest-pack.zip"]);
    expect(readdirSync(join(dir, ".svc-dl"))).toEqual([]);
  });

  it.each(HOSTILE_ARCHIVE_KINDS)("refuses the %s archive and writes nothing", async (kind) => {
    const a = put("evil-pack.zip", hostileArchive(kind));
    await expect(a.run()).rejects.toMatchObject({ code: "unsafe_archive", exitCode: 7 });
    expect(readdirSync(dir).sort()).toEqual([".svc-dl", "evil-pack.zip"]);
    expect(readdirSync(join(dir, ".svc-dl"))).toEqual([]);
    expect(readdirSync(root)).toEqual(["out"]);
  });

  it.each<[string, RawZipEntry, RegExp]>([
    [
      "a stored entry whose two sizes differ",
      { name: "p/a.bin", data: text("12345"), method: 0, declaredSize: 3 },
      /stored entry "p\/a.bin" declares 3 bytes but holds 5/,
    ],
    [
      "a deflated entry shorter than declared",
      { name: "p/b.bin", data: text("12345"), declaredSize: 9 },
      /holds 5 bytes, not its declared 9/,
    ],
    [
      "an encrypted deflated entry",
      { name: "p/c.bin", data: text("12345"), flags: 0x0001 },
      /entry "p\/c.bin" is encrypted/,
    ],
  ])("refuses %s, naming it, and writes nothing", async (_what, entry, problem) => {
    const a = put("odd-pack.zip", [{ name: "p/ok.txt", data: text("ok") }, entry]);
    await expect(a.run()).rejects.toMatchObject({ code: "unsafe_archive", message: problem });
    expect(readdirSync(dir).sort()).toEqual([".svc-dl", "odd-pack.zip"]);
    expect(readdirSync(join(dir, ".svc-dl"))).toEqual([]);
  });

  it("finishes an interrupted swap and removes half-built folders", async () => {
    await put("forest-pack.zip", V1).run();
    const state = join(dir, ".svc-dl");
    // cut between the two renames: the old folder aside, the new one half built
    const { renameSync } = await import("node:fs");
    renameSync(join(dir, "forest-pack"), join(state, "extract-forest-pack.old"));
    mkdirSync(join(state, "extract-forest-pack.new"));
    writeFileSync(join(state, "extract-forest-pack.new/half.txt"), "half");
    const b = put("forest-pack.zip", V2);
    expect((await b.run()).status).toBe("extracted");
    expect(tree(join(dir, "forest-pack"))).toContain("forest/textures/bark.png");
    expect(tree(join(dir, "forest-pack"))).not.toContain("forest/models/old-only.glb");
    expect(readdirSync(state).filter((n) => n.startsWith("extract-"))).toEqual([]);
  });

  it("ignores manifest records that name paths outside their folder", async () => {
    await put("forest-pack.zip", V1).run();
    writeFileSync(join(root, "outside.txt"), "precious");
    const path = join(dir, ".svc-dl/extracted.json");
    const doc = JSON.parse(readFileSync(path, "utf8"));
    doc.folders["forest-pack"].files.push("../../outside.txt");
    doc.folders["../x"] = doc.folders["forest-pack"];
    writeFileSync(path, JSON.stringify(doc));
    expect(readExtractedManifest(dir).folders).toEqual({});
    // without a trusted record, the old files count as the user's: nothing is replaced
    await expect(put("forest-pack.zip", V2).run()).rejects.toMatchObject({ code: "file_exists" });
    expect(readFileSync(join(root, "outside.txt"), "utf8")).toBe("precious");
  });

  it("never reads or writes the manifest through a symlink", async () => {
    const victim = join(root, "victim.json");
    writeFileSync(victim, '{"folders":{}}');
    mkdirSync(join(dir, ".svc-dl"), { mode: 0o700 });
    symlinkSync(victim, join(dir, ".svc-dl/extracted.json"));
    await put("forest-pack.zip", V1).run();
    expect(readFileSync(victim, "utf8")).toBe('{"folders":{}}');
    expect(readExtractedManifest(dir).folders["forest-pack"]?.files).toHaveLength(3);
  });

  it("does not put back a symlink planted as a folder moved aside", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(dir, ".svc-dl"), { mode: 0o700 });
    symlinkSync(elsewhere, join(dir, ".svc-dl/extract-forest-pack.old"));
    await put("forest-pack.zip", V1).run();
    expect(tree(join(dir, "forest-pack"))).toContain("forest/README.txt");
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("names the folder after the archive, never .svc-dl", () => {
    expect(extractFolderName("forest-pack.zip")).toBe("forest-pack");
    expect(extractFolderName("Forest.ZIP")).toBe("Forest");
    expect(extractFolderName(".svc-dl.zip")).toBe(".svc-dl.zip.d");
    expect(extractFolderName("pack")).toBe("pack.d");
  });
});
