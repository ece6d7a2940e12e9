import { writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { describeDamage, findDamage } from "../../src/integrity/check-file.js";
import { findZipDamage } from "../../src/integrity/zip-check.js";
import { buildZip } from "../../src/mock-server/zip-builder.js";
import { tempDir } from "../helpers/download.js";
import { flipped, halfCompressible, localOffsets, zip64Archive } from "./zip-samples.js";

const dir = tempDir("zip-check-");
/** A central directory record's signature, as it is stored. */
const CENTRAL_SIGNATURE = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
let n = 0;
function fileWith(bytes: Buffer): string {
  const path = join(dir, `f${n++}.zip`);
  writeFileSync(path, bytes);
  return path;
}

const entries = [
  { name: "models/rock.glb", data: halfCompressible(300_000, 1), method: 8 as const },
  { name: "textures/rock.png", data: halfCompressible(70_000, 2), method: 0 as const },
  { name: "README.txt", data: Buffer.from("hello\n"), method: 8 as const },
  { name: "empty/", data: Buffer.alloc(0), method: 0 as const },
];
const good = buildZip(entries);
/** Offset of the first byte of `name`'s data in `good`. */
function dataStart(index: number): number {
  let offset = 0;
  for (let i = 0; i < index; i++) {
    const e = entries[i];
    if (!e) throw new Error("no entry");
    const body = e.method === 8 ? deflateRawSync(e.data) : e.data;
    offset += 30 + Buffer.byteLength(e.name) + body.length;
  }
  return offset + 30 + Buffer.byteLength(entries[index]?.name ?? "");
}

describe("findDamage (zip): every entry against the archive's own CRC-32 and sizes", () => {
  it("passes a sound archive with stored, deflated and empty entries", async () => {
    expect(await findDamage(fileWith(good), "zip")).toBeUndefined();
  });

  it("names the entry and its offset when one byte of deflated data is flipped deep inside", async () => {
    const at = dataStart(0) + 100_000;
    const damage = await findDamage(fileWith(flipped(good, at)), "zip");
    expect(damage?.entry).toBe("models/rock.glb");
    expect(damage?.offset).toBe(0);
    expect(damage?.reason).toMatch(/CRC-32|deflate data is invalid|bytes/);
  });

  it("finds a flipped byte in a stored entry by its CRC-32", async () => {
    const damage = await findDamage(fileWith(flipped(good, dataStart(1) + 12_345)), "zip");
    expect(damage?.entry).toBe("textures/rock.png");
    expect(damage?.reason).toMatch(/^CRC-32 of the data is [0-9a-f]{8}, the archive records/);
    expect(damage?.offset).toBe(dataStart(1) - 30 - "textures/rock.png".length);
    expect(describeDamage(damage ?? { reason: "" })).toMatch(
      /^entry "textures\/rock.png" at byte \d+: CRC-32/,
    );
  });

  it("finds a local header that disagrees with the central directory", async () => {
    const at = dataStart(1) - "textures/rock.png".length; // first byte of the local name
    const damage = await findDamage(fileWith(flipped(good, at)), "zip");
    expect(damage?.entry).toBe("textures/rock.png");
    expect(damage?.reason).toMatch(/local header disagrees .*names differ/);
  });

  it("finds a declared size that lies (data is shorter than recorded)", async () => {
    const lying = buildZip([
      { name: "a.bin", data: Buffer.alloc(1000, 7), method: 8, declaredSize: 1001 },
    ]);
    const damage = await findDamage(fileWith(lying), "zip");
    expect(damage?.reason).toMatch(/data is 1000 bytes, the archive records 1001/);
  });

  it("stops inflating past the recorded size (a bomb is not inflated to its end)", async () => {
    const bomb = buildZip([
      { name: "b.bin", data: Buffer.alloc(4 << 20), method: 8, declaredSize: 10 },
    ]);
    const damage = await findDamage(fileWith(bomb), "zip");
    expect(damage?.reason).toMatch(/inflates to more than the recorded 10 bytes/);
  });

  it("refuses a truncated archive, an HTML page, an empty file and a cut central directory", async () => {
    expect((await findDamage(fileWith(good.subarray(0, good.length - 10)), "zip"))?.reason).toMatch(
      /does not parse/,
    );
    expect(
      (await findDamage(fileWith(Buffer.from("<!doctype html><p>502</p>")), "zip"))?.reason,
    ).toMatch(/does not parse/);
    expect((await findDamage(fileWith(Buffer.alloc(0)), "zip"))?.reason).toMatch(/empty/);
    const cdStart = good.length - 22 - good.readUInt32LE(good.length - 22 + 12);
    expect((await findDamage(fileWith(flipped(good, cdStart)), "zip"))?.reason).toMatch(
      /central directory does not parse/,
    );
  });

  it("finds a CRC-32 in the central directory that is not the data's", async () => {
    const cdStart = good.length - 22 - good.readUInt32LE(good.length - 22 + 12);
    const damage = await findDamage(fileWith(flipped(good, cdStart + 16)), "zip");
    expect(damage?.entry).toBe("models/rock.glb");
    expect(damage?.reason).toMatch(/CRC-32/);
  });

  it("passes an encrypted entry's data unchecked (its CRC-32 is of the plaintext), not its header", async () => {
    const enc = buildZip([{ name: "s.bin", data: Buffer.alloc(10, 1), method: 0, flags: 0x0001 }]);
    expect(await findDamage(fileWith(enc), "zip")).toBeUndefined();
    expect((await findDamage(fileWith(flipped(enc, 30)), "zip"))?.reason).toMatch(/names differ/);
  });

  it("reads a ZIP64 archive as such", async () => {
    const zip64 = zip64Archive();
    expect(await findDamage(fileWith(zip64), "zip")).toBeUndefined();
    const dataAt = 30 + "x.bin".length;
    expect((await findDamage(fileWith(flipped(zip64, dataAt + 3)), "zip"))?.reason).toMatch(
      /CRC-32/,
    );
  });

  it("reads the central directory in batches (bounded memory): a later batch's damage is found, the first batch holding damage names it", async () => {
    const many = buildZip(
      Array.from({ length: 10 }, (_, i) => ({
        name: `part-${i}.bin`,
        data: halfCompressible(2_000, 10 + i),
        method: (i % 2 ? 8 : 0) as 0 | 8,
      })),
    );
    const offsets = localOffsets(many);
    const dataOf = (i: number) => (offsets[i] ?? 0) + 30 + `part-${i}.bin`.length;
    const damageIn = async (bytes: Buffer, batchEntries: number) => {
      const file = await open(fileWith(bytes));
      try {
        return await findZipDamage(file, undefined, batchEntries);
      } finally {
        await file.close();
      }
    };
    expect(await damageIn(many, 3)).toBeUndefined();
    expect((await damageIn(flipped(many, dataOf(8) + 7), 3))?.entry).toBe("part-8.bin");
    const twice = flipped(flipped(many, dataOf(8) + 7), dataOf(1) + 7);
    expect((await damageIn(twice, 3))?.entry).toBe("part-1.bin");
    // the last record's signature broken: the three batches before it pass, then it is damage
    const cdStart = many.length - 22 - many.readUInt32LE(many.length - 22 + 12);
    let lastRecord = cdStart;
    for (let i = 0; i < 9; i++) lastRecord = many.indexOf(CENTRAL_SIGNATURE, lastRecord + 4);
    expect(lastRecord).toBeGreaterThan(cdStart);
    expect((await damageIn(flipped(many, lastRecord), 3))?.reason).toMatch(
      /central directory does not parse/,
    );
    // …and damage in an earlier batch is named before it
    const both = flipped(flipped(many, lastRecord), dataOf(4) + 7);
    expect((await damageIn(both, 3))?.entry).toBe("part-4.bin");
  });

  it("calls a symlink or a missing file damaged, never following it", async () => {
    expect((await findDamage(join(dir, "nope.zip"), "zip"))?.reason).toBe("not a regular file");
  });
});
