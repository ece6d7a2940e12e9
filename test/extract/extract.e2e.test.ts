import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  HOSTILE_ARCHIVE_KINDS,
  type HostileArchiveKind,
} from "../../src/mock-server/hostile-zip.js";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/download.js";
import { useMockService } from "../helpers/mock.js";

/** `--extract` over real HTTP against the mock service (cli-contract "Downloads", `--extract`). */

const shared = useMockService({
  packSize: 96 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

interface ExtractedDoc {
  path: string;
  sha256: string;
  status: string;
  extracted: { path: string; status: "extracted" | "unchanged"; files: number };
}

/** Every file under `base`, relative, sorted. */
function files(base: string): string[] {
  return (readdirSync(base, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(base.length + 1))
    .sort();
}

async function getExtract(dir: string, slug = "desert-rocks") {
  const r = await runCli(["pack", "get", slug, "--extract", "-o", `${dir}/`, "--json"], {
    env: shared.env(),
  });
  return { ...r, doc: r.code === 0 ? (JSON.parse(r.stdout) as ExtractedDoc) : undefined };
}

describe("pack get --extract", () => {
  it("extracts a realistic archive (stored and deflated entries, nested folders) and keeps the ZIP", async () => {
    const dir = tempDir();
    const r = await getExtract(dir);
    expect(r.code).toBe(0);
    const folder = join(dir, "desert-rocks");
    expect(r.doc?.extracted).toEqual({
      path: folder,
      status: "extracted",
      files: expect.any(Number),
    });
    const got = files(folder);
    expect(got.length).toBe(r.doc?.extracted.files);
    expect(got).toContain("desert-rocks/README.txt");
    expect(got).toContain("desert-rocks/docs/LICENSE.txt");
    expect(
      got.filter((f) => f.startsWith("desert-rocks/models/") && f.endsWith(".glb")).length,
    ).toBeGreaterThan(0);
    expect(readFileSync(join(folder, "desert-rocks/docs/LICENSE.txt"), "utf8")).toContain(
      "Licensed to the purchaser of desert-rocks",
    );
    expect(readFileSync(join(folder, "desert-rocks/README.txt"), "utf8")).toContain(
      "slug: desert-rocks",
    );
    expect(existsSync(join(dir, "desert-rocks.zip"))).toBe(true);
    expect(readdirSync(join(dir, ".svc-dl")).filter((n) => n.startsWith("extract-"))).toEqual([]);
  });

  it("does not extract an unchanged archive again", async () => {
    const dir = tempDir();
    await getExtract(dir);
    const readme = join(dir, "desert-rocks/desert-rocks/README.txt");
    const before = statSync(readme).ino;
    const again = await getExtract(dir);
    expect(again.code).toBe(0);
    expect(again.doc?.status).toBe("up-to-date");
    expect(again.doc?.extracted.status).toBe("unchanged");
    expect(statSync(readme).ino).toBe(before);
  });

  it("a new version replaces exactly the old extracted files and keeps a file the user added", async () => {
    const dir = tempDir();
    const first = await getExtract(dir);
    const folder = join(dir, "desert-rocks");
    const oldFiles = files(folder);
    writeFileSync(join(folder, "desert-rocks/models/my-notes.txt"), "mine");
    // the next version is much smaller: fewer GLB entries, so some old files must go
    shared.mock.set({ packs: { "desert-rocks": { size: 3000 } }, packSize: null });
    shared.mock.bumpPackVersion("desert-rocks");
    try {
      const second = await getExtract(dir);
      expect(second.code).toBe(0);
      expect(second.doc?.sha256).not.toBe(first.doc?.sha256);
      expect(second.doc?.extracted.status).toBe("extracted");
      const now = files(folder);
      expect(now).toContain("desert-rocks/models/my-notes.txt");
      expect(readFileSync(join(folder, "desert-rocks/models/my-notes.txt"), "utf8")).toBe("mine");
      const fromArchive = now.filter((f) => f !== "desert-rocks/models/my-notes.txt");
      expect(fromArchive.length).toBe(second.doc?.extracted.files);
      expect(fromArchive.length).toBeLessThan(oldFiles.length);
      const manifest = JSON.parse(readFileSync(join(dir, ".svc-dl/extracted.json"), "utf8"));
      expect(manifest.folders["desert-rocks"].files).toEqual(fromArchive);
      expect(manifest.folders["desert-rocks"].sha256).toBe(second.doc?.sha256);
    } finally {
      shared.mock.set({ packSize: 96 * 1024 });
    }
  });

  /** `pack get desert-rocks --extract -o <tmp>/out/` served the `kind` hostile archive. */
  async function getHostile(kind: HostileArchiveKind) {
    const dir = tempDir();
    const out = join(dir, "out");
    shared.mock.set({ faults: { hostileArchive: kind } });
    const r = await runCli(["pack", "get", "desert-rocks", "--extract", "-o", `${out}/`], {
      env: shared.env(),
    });
    return { dir, out, r };
  }

  /** Archives whose entries lie about their sizes fail the integrity check before extraction. */
  const lyingKinds: readonly HostileArchiveKind[] = ["zip-bomb", "lying-size"];

  it.each(lyingKinds)(
    "refuses the %s archive before it takes its name: exit 7 corrupt_download, nothing kept",
    async (kind) => {
      const { out, r } = await getHostile(kind);
      expect(r.code).toBe(7);
      expect(r.stderr).toContain("corrupt_download");
      expect(r.stderr).toMatch(
        /entry "pack\/(bomb|liar)\.bin" at byte \d+: (data is|inflates to more)/,
      );
      expect(readdirSync(out)).toEqual([".svc-dl"]);
    },
  );

  it.each(HOSTILE_ARCHIVE_KINDS.filter((k) => !lyingKinds.includes(k)))(
    "refuses the %s archive: exit 7 unsafe_archive, nothing written, the ZIP kept",
    async (kind) => {
      const { dir, out, r } = await getHostile(kind);
      expect(r.code).toBe(7);
      expect(r.stderr).toContain("unsafe_archive");
      expect(readdirSync(dir)).toEqual(["out"]);
      expect(readdirSync(out).sort()).toEqual([".svc-dl", "desert-rocks.zip"]);
      expect(readdirSync(join(out, ".svc-dl")).filter((n) => n.startsWith("extract"))).toEqual([]);
      expect(existsSync("/tmp/svc-dl-mock-evil.txt")).toBe(false);
    },
  );

  it("an interrupted extraction leaves no half-filled folder: the next run cleans up and completes", async () => {
    const dir = tempDir();
    const state = join(dir, ".svc-dl");
    // what a run killed while writing leaves: a half-built folder inside .svc-dl, none in place
    mkdirSync(join(state, "extract-desert-rocks.new/desert-rocks"), {
      recursive: true,
      mode: 0o700,
    });
    writeFileSync(join(state, "extract-desert-rocks.new/desert-rocks/README.txt"), "half");
    const r = await getExtract(dir);
    expect(r.code).toBe(0);
    expect(readdirSync(state).filter((n) => n.startsWith("extract-"))).toEqual([]);
    expect(readFileSync(join(dir, "desert-rocks/desert-rocks/README.txt"), "utf8")).toContain(
      "slug: desert-rocks",
    );
  });

  it("refuses --extract with -o - (usage, exit 2, no request)", async () => {
    const r = await runCli(["pack", "get", "desert-rocks", "--extract", "-o", "-"], {
      env: shared.env(),
    });
    expect(r.code).toBe(2);
    expect(shared.mock.requests).toEqual([]);
  });
});

describe("packs sync --extract", () => {
  it("extracts every pack; the second run makes no download request and extracts nothing again", async () => {
    const dir = tempDir();
    const env = shared.env();
    const first = await runCli(["packs", "sync", dir, "--extract", "--json"], { env });
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout) as {
      items: { slug: string; extracted?: { status: string; path: string } }[];
    };
    expect(doc.items.length).toBeGreaterThan(1);
    for (const item of doc.items) {
      expect(item.extracted?.status).toBe("extracted");
      expect(existsSync(join(dir, item.slug, item.slug, "README.txt"))).toBe(true);
    }
    shared.mock.clearLog();
    const second = await runCli(["packs", "sync", dir, "--extract", "--json"], { env });
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout) as typeof doc;
    expect(again.items.map((i) => i.extracted?.status)).toEqual(doc.items.map(() => "unchanged"));
    expect(shared.mock.requests.filter((e) => e.url.includes("/download"))).toEqual([]);
  });

  it("a hostile archive fails its item (unsafe_archive) and the run ends with exit 1", async () => {
    const dir = tempDir();
    shared.mock.set({ faults: { hostileArchive: "zip-slip" } });
    const r = await runCli(["packs", "sync", dir, "--extract", "--json"], { env: shared.env() });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { items: { status: string; error: { code: string } }[] };
    expect(doc.items.every((i) => i.status === "failed" && i.error.code === "unsafe_archive")).toBe(
      true,
    );
    expect(
      readdirSync(dir)
        .filter((n) => !n.endsWith(".zip"))
        .sort(),
    ).toEqual([".svc-dl"]);
  });
});

/** A chain `a/a/a/…` under `base`, as deep as an absolute path allows (about 2,000 levels). */
function deepLeftover(base: string): number {
  let at = base;
  mkdirSync(at, { recursive: true });
  for (let levels = 0; ; levels++) {
    try {
      mkdirSync(join(at, "a"));
    } catch {
      writeFileSync(join(base, "half.glb"), "half");
      return levels;
    }
    at = join(at, "a");
  }
}

describe("--extract: every refusal names its cause; deep and long names", () => {
  it.each<[HostileArchiveKind, RegExp, RegExp]>([
    ["zip-slip", /climbs out of its folder/, /could lead outside its folder/],
    ["absolute", /has an absolute path/, /could lead outside its folder/],
    ["drive-letter", /starts with a drive letter/, /could lead outside its folder/],
    ["backslash", /climbs out of its folder/, /could lead outside its folder/],
    ["symlink", /is a symbolic link/, /never extracts symbolic links/],
    ["reserved-name", /reserved on Windows/, /Windows cannot store/],
    ["windows-chars", /not valid on Windows/, /Windows cannot store/],
    ["duplicate", /collides with another entry/, /case-insensitive file systems/],
    ["deep", /is 2102 levels deep \(at most 64\)/, /at most 64 levels deep/],
    ["long-name", /has a 304-byte name \(at most 255 bytes\)/, /255 bytes per name/],
    ["long-path", /has a 1113-byte path \(at most 1024 bytes\)/, /1,024 bytes per path/],
    ["encrypted", /entry "pack\/secret.txt" is encrypted/, /password-protected/],
  ])(
    "refuses the %s archive before writing anything: exit 7, its message and hint name the cause",
    async (kind, message, hint) => {
      const dir = tempDir();
      shared.mock.set({ faults: { hostileArchive: kind } });
      const r = await runCli(["pack", "get", "desert-rocks", "--extract", "-o", `${dir}/`], {
        env: shared.env(),
      });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/size mismatch/);
      const hintLine = r.stderr.split("\n").find((l) => l.startsWith("hint:")) ?? "";
      expect(hintLine).toMatch(hint);
      if (!/outside/.test(hint.source)) expect(hintLine).not.toMatch(/outside/);
      expect(readdirSync(dir).sort()).toEqual([".svc-dl", "desert-rocks.zip"]);
      expect(readdirSync(join(dir, ".svc-dl")).filter((n) => n.startsWith("extract"))).toEqual([]);
    },
  );

  it("packs sync: a 2,100-level archive fails its item only; the other packs are extracted, and a later run works", async () => {
    const dir = tempDir();
    const env = shared.env();
    shared.mock.set({ faults: { hostileArchive: "deep", hostileArchiveSlugs: ["desert-rocks"] } });
    type SyncDoc = {
      items: {
        slug: string;
        status: string;
        error?: { code: string; message: string };
        extracted?: { status: string };
      }[];
    };
    const first = await runCli(["packs", "sync", dir, "--extract", "--json"], { env });
    expect(first.code, first.stderr).toBe(1);
    const doc = JSON.parse(first.stdout) as SyncDoc;
    const others = doc.items.filter((i) => i.slug !== "desert-rocks");
    expect(others.length).toBeGreaterThan(0);
    expect(others.map((i) => i.extracted?.status)).toEqual(others.map(() => "extracted"));
    const deep = doc.items.find((i) => i.slug === "desert-rocks");
    expect(deep?.status).toBe("failed");
    expect(deep?.error?.code).toBe("unsafe_archive");
    expect(deep?.error?.message).toMatch(/levels deep/);
    expect(existsSync(join(dir, "desert-rocks"))).toBe(false);
    expect(readdirSync(join(dir, ".svc-dl")).filter((n) => n.startsWith("extract-"))).toEqual([]);

    const second = await runCli(["packs", "sync", dir, "--extract", "--json"], { env });
    expect(second.code, second.stderr).toBe(1);
    const again = JSON.parse(second.stdout) as SyncDoc;
    const still = again.items.filter((i) => i.slug !== "desert-rocks");
    expect(still.map((i) => i.extracted?.status)).toEqual(still.map(() => "unchanged"));
    expect(again.items.find((i) => i.slug === "desert-rocks")?.error?.code).toBe("unsafe_archive");
  });

  it("a 2,000-level temp tree left by an earlier crash is removed and does not wedge the next run", {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir();
    const leftover = join(dir, ".svc-dl", "extract-desert-rocks.new");
    expect(deepLeftover(leftover)).toBeGreaterThan(1900);
    const other = join(dir, ".svc-dl", "extract-forest-pack.new", "x");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "half.glb"), "half");
    const r = await getExtract(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc?.extracted.status).toBe("extracted");
    expect(existsSync(dirname(leftover))).toBe(true);
    expect(readdirSync(join(dir, ".svc-dl")).filter((n) => n.startsWith("extract-"))).toEqual([]);
  });
});
