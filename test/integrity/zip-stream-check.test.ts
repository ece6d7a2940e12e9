import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openHashingWriter } from "../../src/download/writer.js";
import { findDamage } from "../../src/integrity/check-file.js";
import {
  type CollectionKind,
  countInflated,
  setInflateCollector,
} from "../../src/integrity/inflate-collector.js";
import { ZipStreamCheck } from "../../src/integrity/zip-stream-check.js";
import { hostileArchive } from "../../src/mock-server/hostile-zip.js";
import { tempDir } from "../helpers/files.js";
import { prng } from "../helpers/prng.js";
import {
  buildZip,
  flipped,
  localOffsets,
  MIXED,
  zip64Archive,
  zip64SizesArchive,
} from "./zip-samples.js";

const dir = tempDir("zip-stream-");
let n = 0;

/**
 * Writes `bytes` through a download writer (chunks of 1..maxChunk bytes, the read-back given a
 * turn now and then, so blocks split anywhere), with a ZipStreamCheck following the read-back
 * from offset 0; `keep` bytes are written first and kept as a resumed part. Returns the verdict.
 */
async function streamed(bytes: Buffer, seed = 1, maxChunk = 70_000, keep = 0, maxEntries?: number) {
  const rnd = prng(seed);
  const path = join(dir, `s${n++}.zip`);
  writeFileSync(path, bytes.subarray(0, keep));
  const check = new ZipStreamCheck(maxEntries);
  const writer = openHashingWriter(path, keep, {
    batchBytes: 4096,
    maxDelayMs: 60_000,
    consumers: [check],
  });
  for (let at = keep; at < bytes.length; ) {
    const k = 1 + Math.floor(rnd() * maxChunk);
    writer.write(bytes.subarray(at, at + k));
    at += k;
    if (rnd() < 0.3) await nextTurn();
  }
  writer.close();
  await writer.digest();
  return { verdict: await check.settle(path), check, path };
}

const good = buildZip(MIXED);

describe("ZipStreamCheck: a ZIP checked as it is read back during its download", () => {
  it("finds a sound archive of stored, deflated and empty entries sound, at every offset", async () => {
    const { verdict, check } = await streamed(good);
    expect(verdict).toBe("sound");
    const walked = await check.inflated();
    expect(walked.map((w) => w.offset)).toEqual(localOffsets(good));
    const rock = walked[0];
    expect(rock?.uncompressedBytes).toBe(300_000);
    expect(rock?.endedExactly).toBe(true);
  });

  it("is sound whatever the blocks are (1 byte, odd sizes, a resumed part kept from before)", async () => {
    expect((await streamed(good, 2, 1)).verdict).toBe("sound");
    expect((await streamed(good, 3, 333)).verdict).toBe("sound");
    expect((await streamed(good, 4, 9000, 150_001)).verdict).toBe("sound");
  });

  it("reads ZIP64 end records, and local sizes in a ZIP64 extra field", async () => {
    const zip64 = zip64Archive();
    expect((await streamed(zip64, 5, 7)).verdict).toBe("sound");
    expect((await streamed(flipped(zip64, 30 + 5 + 3), 5, 7)).verdict).toBe("unsure");
    const sized = zip64SizesArchive();
    expect(await findDamage((await streamed(sized)).path, "zip")).toBeUndefined();
    expect((await streamed(sized, 6, 100)).verdict).toBe("sound");
  });

  it("an encrypted entry's header is checked, not its data, as findDamage does", async () => {
    const enc = hostileArchive("encrypted");
    expect((await streamed(enc, 7, 10)).verdict).toBe("sound");
    const secret = (localOffsets(enc)[1] ?? 0) + 30; // first byte of its local name
    expect((await streamed(flipped(enc, secret), 7, 10)).verdict).toBe("unsure");
  });

  it("is unsure of a data descriptor, a method it cannot check, a cut file, too many entries", async () => {
    const descriptor = buildZip([
      { name: "a.txt", data: Buffer.from("hello"), method: 0 },
      { name: "b.bin", data: Buffer.alloc(1000, 7), method: 8, flags: 0x0008 },
    ]);
    const { verdict, path } = await streamed(descriptor);
    expect(verdict).toBe("unsure");
    expect(await findDamage(path, "zip")).toBeUndefined(); // findDamage decides: sound
    const method = Buffer.from(good);
    method.writeUInt16LE(12, 8); // bzip2 in the first local header
    expect((await streamed(method)).verdict).toBe("unsure");
    expect((await streamed(good.subarray(0, good.length - 30))).verdict).toBe("unsure");
    expect((await streamed(Buffer.from("<!doctype html>"))).verdict).toBe("unsure");
    // more entries than the walk records: left to findDamage
    expect((await streamed(good, 1, 70_000, 0, 4)).verdict).toBe("unsure");
    expect((await streamed(good, 1, 70_000, 0, 5)).verdict).toBe("sound");
  });

  it("is unsure of damage: data byte (stored, deflated), local header, central record, a moved header", async () => {
    const [rock = 0, png = 0, , , tree = 0] = localOffsets(good);
    const cdOffset = good.readUInt32LE(good.length - 22 + 16);
    const damaged = [
      flipped(good, rock + 40 + 100_000), // deflated data
      flipped(good, png + 47 + 12_345), // stored data
      flipped(good, png + 30), // a name byte in a local header
      flipped(good, png + 14), // the local CRC-32
      flipped(good, png + 22), // the local uncompressed size
      flipped(good, cdOffset + 16), // the central CRC-32
      flipped(good, cdOffset + 24), // the central uncompressed size
    ];
    // the central directory says the last entry's header is one byte later than it is
    const moved = Buffer.from(good);
    const lastRecord = good.lastIndexOf(Buffer.from("models/tree.glb")) - 46;
    moved.writeUInt32LE(tree + 1, lastRecord + 42);
    damaged.push(moved);
    for (const [i, bytes] of damaged.entries()) {
      const { verdict, path } = await streamed(bytes, 10 + i);
      expect([i, verdict]).toEqual([i, "unsure"]);
      expect(await findDamage(path, "zip")).toBeDefined();
    }
  });

  it("never says sound where findDamage finds damage: one byte changed anywhere (seeded)", async () => {
    const small = buildZip([
      { name: "a.glb", data: Buffer.alloc(3000, 5), method: 8 },
      { name: "b.bin", data: Buffer.from("stored bytes here"), method: 0 },
      { name: "c.txt", data: Buffer.from("x".repeat(500)), method: 8 },
    ]);
    const seed = 42;
    const rnd = prng(seed);
    let sound = 0;
    for (let i = 0; i < 120; i++) {
      const at = Math.floor(rnd() * small.length);
      const bytes = flipped(small, at, 1 + Math.floor(rnd() * 255));
      const { verdict, path } = await streamed(bytes, i, 1 + Math.floor(rnd() * 200));
      const damage = await findDamage(path, "zip");
      if (verdict === "sound") {
        sound++;
        expect({ seed, i, at, damage }).toEqual({ seed, i, at, damage: undefined });
      }
    }
    // flips in time stamps, attributes and the like change no check: some are sound
    expect(sound).toBeGreaterThan(0);
  });

  it("runs the program's collector after every 4 MiB inflated, and none by default", async () => {
    const big = buildZip([
      { name: "a.bin", data: Buffer.alloc(13 << 20, 1), method: 8 },
      { name: "b.bin", data: Buffer.alloc(13 << 20, 2), method: 8 },
    ]);
    let calls = 0;
    setInflateCollector((kind) => {
      calls += 1;
      expect(kind).toBe("young");
    });
    try {
      expect((await streamed(big, 1, 1 << 20)).verdict).toBe("sound");
    } finally {
      setInflateCollector(undefined);
    }
    expect(calls).toBe(6); // 26 MiB inflated
    expect((await streamed(big, 1, 1 << 20)).verdict).toBe("sound");
    expect(calls).toBe(6);
  });

  it("asks the collector for a full collection every 128 MiB inflated, a young one every 4 MiB between", () => {
    const kinds: CollectionKind[] = [];
    setInflateCollector((kind) => kinds.push(kind));
    try {
      for (let i = 0; i < 256 * 4; i++) countInflated(256 * 1024);
    } finally {
      setInflateCollector(undefined);
    }
    expect(kinds).toHaveLength(64);
    expect(kinds.flatMap((kind, i) => (kind === "full" ? [i + 1] : []))).toEqual([32, 64]);
    countInflated(8 << 20); // none set: nothing runs, nothing counts
    expect(kinds).toHaveLength(64);
  });
});
