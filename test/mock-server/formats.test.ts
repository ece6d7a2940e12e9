/** File formats: packs are valid ZIP archives, assets valid GLB 2.0, deterministic, any size. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buffer } from "node:stream/consumers";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { type MockService, startMockService } from "../../src/mock-server/index.js";
import { call, readGlb, sha256 } from "./helpers.js";

/** One entry read through yauzl: name, compression method, inflated bytes (CRC-32 checked). */
interface ReadEntry {
  name: string;
  method: number;
  data: Buffer;
}

/** Reads every entry of an archive with yauzl (sizes validated by yauzl, CRC-32 here). */
async function readZip(buf: Buffer): Promise<ReadEntry[]> {
  const zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true, validateEntrySizes: true });
  const out: ReadEntry[] = [];
  for await (const entry of zip.eachEntry()) {
    const data = await buffer(await zip.openReadStreamPromise(entry));
    if (crc32(data) >>> 0 !== entry.crc32) throw new Error(`${entry.fileName}: CRC-32 differs`);
    out.push({ name: entry.fileName, method: entry.compressionMethod, data });
  }
  return out;
}

let mock: MockService;
let dir: string;
beforeAll(async () => {
  mock = await startMockService({ limits: { download: { quota: 10_000, windowSeconds: 60 } } });
  dir = mkdtempSync(join(tmpdir(), "svc-dl-mock-"));
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

const download = async (path: string) =>
  (await call(mock, path, { key: mock.apiKey, follow: true })).body;

describe("ZIP packs", () => {
  it("parse: nested folders, stored and deflated entries, correct sizes and CRC-32s", async () => {
    const buf = await download("/api/v1/packs/sci-fi-props/download");
    const entries = await readZip(buf);
    expect(entries[0]?.name).toBe("sci-fi-props/README.txt");
    expect(entries[0]?.data.toString("utf8")).toContain("slug: sci-fi-props");
    expect(entries[0]?.method).toBe(0);
    expect(entries[1]?.name).toBe("sci-fi-props/docs/LICENSE.txt");
    expect(entries[1]?.method).toBe(8);
    expect(entries[1]?.data.toString("utf8")).toContain(
      "Licensed to the purchaser of sci-fi-props",
    );
    expect(entries.filter((e) => e.name.startsWith("sci-fi-props/models/"))).toHaveLength(18);
    const glbs = entries.filter((e) => e.name.endsWith(".glb"));
    expect(glbs).toHaveLength(18); // asset_count of the pack
    for (const g of glbs) expect(() => readGlb(g.data)).not.toThrow();
    expect(buf.length).toBe(3 * 1024 * 1024);
  });

  it("unzip -t accepts the archive (when /usr/bin/unzip exists)", async () => {
    const buf = await download("/api/v1/packs/medieval-village/download?edition=authoring");
    const file = join(dir, "mv.zip");
    writeFileSync(file, buf);
    await readZip(buf);
    if (existsSync("/usr/bin/unzip")) {
      const out = execFileSync("/usr/bin/unzip", ["-t", file], { encoding: "utf8" });
      expect(out).toContain("No errors detected");
    }
  });

  it("contents are deterministic from slug, edition and version", async () => {
    const a = await download("/api/v1/packs/sci-fi-props/download");
    const b = await download("/api/v1/packs/sci-fi-props/download");
    expect(sha256(a)).toBe(sha256(b));
    const forest = await download("/api/v1/packs/low-poly-forest/download");
    const forestA = await download("/api/v1/packs/low-poly-forest/download?edition=authoring");
    expect(sha256(forest)).not.toBe(sha256(forestA));
    mock.bumpPackVersion("sci-fi-props");
    const c = await download("/api/v1/packs/sci-fi-props/download");
    expect(sha256(c)).not.toBe(sha256(a));
    await expect(readZip(c)).resolves.toHaveLength(18 + 2);
  });

  it("the pack size override gives archives of exactly that size, tiny or larger", async () => {
    for (const size of [5000, 10 * 1024 * 1024 + 3]) {
      mock.set({ packSize: size });
      const buf = await download("/api/v1/packs/desert-rocks/download");
      expect(buf.length).toBe(size);
      const entries = await readZip(buf);
      expect(entries.length).toBeGreaterThan(1);
      const info = await mock.fileInfo({ kind: "pack", slug: "desert-rocks" });
      expect(info.size).toBe(size);
      expect(info.sha256).toBe(sha256(buf));
    }
    mock.set({ packSize: null });
  });
});

describe("GLB assets", () => {
  it("valid GLB 2.0: magic, version 2, total length, JSON chunk then BIN chunk", async () => {
    const buf = await download("/api/v1/assets/village-well/download");
    const { json, binLength } = readGlb(buf);
    expect((json.asset as { version: string }).version).toBe("2.0");
    expect((json.buffers as { byteLength: number }[])[0]?.byteLength).toBe(binLength);
    expect(buf.length).toBe(320 * 1024);
  });

  it("the public preview GLB needs no key", async () => {
    const list = await call(mock, "/api/v1/assets", { key: mock.apiKey });
    const first = (list.json as { data: { preview_url: string }[] }).data[0];
    const r = await call(mock, first?.preview_url ?? "");
    expect(r.status).toBe(200);
    expect(() => readGlb(r.body)).not.toThrow();
  });
});

describe("ZIP64 for archives of 4 GiB and more", () => {
  it("a 4.7 GB layout ends with a ZIP64 EOCD record, locator and EOCD pointing at the central directory", async () => {
    const { packZipLayout } = await import("../../src/mock-server/zip.js");
    const { rangeChunks } = await import("../../src/mock-server/content.js");
    const size = 4_700_000_000;
    const layout = packZipLayout({
      slug: "huge",
      edition: "standard",
      version: 1,
      assetCount: 4,
      size,
    });
    expect(layout.size).toBe(size);
    const tail = Buffer.concat([...rangeChunks(layout, size - 64 * 1024, size - 1)]);
    const eocd = tail.length - 22;
    expect(tail.readUInt32LE(eocd)).toBe(0x06054b50);
    expect(tail.readUInt32LE(eocd + 16)).toBe(0xffffffff);
    const loc = eocd - 20;
    expect(tail.readUInt32LE(loc)).toBe(0x07064b50);
    const z64At = Number(tail.readBigUInt64LE(loc + 8));
    const rec = tail.subarray(z64At - (size - tail.length));
    expect(rec.readUInt32LE(0)).toBe(0x06064b50);
    const entries = Number(rec.readBigUInt64LE(32));
    const cdSize = Number(rec.readBigUInt64LE(40));
    const cdOffset = Number(rec.readBigUInt64LE(48));
    expect(cdOffset + cdSize).toBe(z64At);
    expect(entries).toBeGreaterThanOrEqual(5); // README + ≥ 4 GLBs (each ≤ 256 MiB)
    // the last central directory entry's ZIP64 extra points at a local header
    const cd = Buffer.concat([...rangeChunks(layout, cdOffset, cdOffset + cdSize - 1)]);
    let p = 0;
    let lastOffset = 0;
    for (let i = 0; i < entries; i++) {
      const nlen = cd.readUInt16LE(p + 28);
      const xlen = cd.readUInt16LE(p + 30);
      expect(cd.readUInt16LE(p + 46 + nlen)).toBe(0x0001);
      lastOffset = Number(cd.readBigUInt64LE(p + 46 + nlen + 4));
      p += 46 + nlen + xlen;
    }
    expect(lastOffset).toBeGreaterThan(0xffffffff);
    const lh = Buffer.concat([...rangeChunks(layout, lastOffset, lastOffset + 3)]);
    expect(lh.readUInt32LE(0)).toBe(0x04034b50);
  });
});
