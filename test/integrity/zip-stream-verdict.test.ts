import { describe, expect, it } from "vitest";
import type { Entry } from "yauzl";
import yauzl from "yauzl";
import { ZipStreamCheck } from "../../src/integrity/zip-stream-check.js";
import { verdictOf, type WalkedEntry } from "../../src/integrity/zip-stream-verdict.js";
import { buildZip, MIXED } from "./zip-samples.js";

const good = buildZip([
  ...MIXED,
  { name: "secret.bin", data: Buffer.alloc(40, 3), method: 0, flags: 0x0001 },
]);

async function centralOf(bytes: Buffer): Promise<Entry[]> {
  const zip = await yauzl.fromBufferPromise(bytes, {
    decodeStrings: false,
    validateEntrySizes: false,
  });
  const entries: Entry[] = [];
  for await (const entry of zip.eachEntry()) entries.push(entry);
  zip.close();
  return entries;
}

async function walkOf(bytes: Buffer): Promise<WalkedEntry[]> {
  const check = new ZipStreamCheck();
  await check.update(bytes, 0);
  return [...(await check.inflated())];
}

/** A deep copy of a walk whose header buffers can be changed without touching the original. */
function copyWalk(walk: readonly WalkedEntry[]): WalkedEntry[] {
  return walk.map((w) => ({
    ...w,
    header: { ...w.header, fileName: Buffer.from(w.header.fileName) },
  }));
}

type Mutation = [string, (w: WalkedEntry) => void];
const mutations: Mutation[] = [
  ["offset", (w) => (w.offset += 1)],
  ["name", (w) => (w.header.fileName[0] = (w.header.fileName[0] ?? 0) ^ 1)],
  ["method", (w) => (w.header.compressionMethod ^= 8)],
  ["local CRC-32", (w) => (w.header.crc32 = (w.header.crc32 ^ 1) >>> 0)],
  ["local compressed size", (w) => (w.header.compressedSize += 1)],
  ["local uncompressed size", (w) => (w.header.uncompressedSize += 1)],
  ["compressed bytes walked", (w) => (w.compressedBytes += 1)],
  ["uncompressed bytes", (w) => (w.uncompressedBytes += 1)],
  ["CRC-32 computed", (w) => (w.crc32 = (w.crc32 ^ 0x100) >>> 0)],
  ["not checked", (w) => (w.checked = false)],
  ["deflate did not end exactly", (w) => (w.endedExactly = false)],
];

describe("verdictOf: sound only when every field agrees", () => {
  it("a walk of a sound archive is sound against its own central directory", async () => {
    expect(verdictOf(await centralOf(good), await walkOf(good), yauzl.parseExtraFields)).toBe(
      "sound",
    );
  });

  it("any one field of any one entry differing is unsure (encrypted: its header fields)", async () => {
    const central = await centralOf(good);
    const walk = await walkOf(good);
    const soundAnyway: string[] = [];
    for (let i = 0; i < walk.length; i++) {
      const encrypted = central[i]?.isEncrypted() === true;
      const stored = central[i]?.compressionMethod === 0;
      for (const [what, mutate] of mutations) {
        // what findDamage does not look at either: an encrypted entry's data, a stored one's end
        if (
          encrypted &&
          [
            "uncompressed bytes",
            "CRC-32 computed",
            "not checked",
            "deflate did not end exactly",
          ].includes(what)
        )
          continue;
        const changed = copyWalk(walk);
        const entry = changed[i];
        if (!entry) throw new Error("no entry");
        mutate(entry);
        if (verdictOf(central, changed, yauzl.parseExtraFields) === "sound") {
          soundAnyway.push(`${i} ${what}${stored ? " (stored)" : ""}`);
        }
      }
    }
    expect(soundAnyway).toEqual([]);
  });

  it("a missing, extra or repeated entry is unsure", async () => {
    const central = await centralOf(good);
    const walk = await walkOf(good);
    const parse = yauzl.parseExtraFields;
    expect(verdictOf(central, walk.slice(1), parse)).toBe("unsure");
    expect(verdictOf(central.slice(1), walk, parse)).toBe("unsure");
    const repeated = [...walk.slice(0, -1), walk[0] as WalkedEntry];
    expect(verdictOf(central, repeated, parse)).toBe("unsure");
  });

  it("an encrypted entry's data is not compared, as findDamage does not", async () => {
    const central = await centralOf(good);
    const walk = copyWalk(await walkOf(good));
    const last = walk[walk.length - 1] as WalkedEntry;
    expect(last.checked).toBe(false);
    last.crc32 ^= 1;
    expect(verdictOf(central, walk, yauzl.parseExtraFields)).toBe("sound");
  });
});
