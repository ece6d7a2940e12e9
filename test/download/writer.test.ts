import { createHash } from "node:crypto";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openHashingWriter } from "../../src/download/writer.js";
import { tempDir } from "../helpers/files.js";
import { prng } from "../helpers/prng.js";

const TUNING = { batchBytes: 4096, maxDelayMs: 60_000 };

/** Fills `target`'s first `n` bytes with `data` as a socket read would, and returns the view. */
function landRead(target: Buffer, data: Buffer): Buffer {
  data.copy(target, 0);
  return target.subarray(0, data.length);
}

describe("download writer: reads into lent memory", () => {
  it("takes a read that landed where it was lent without a copy, and writes it once per batch", () => {
    const path = join(tempDir(), "x.part");
    const writer = openHashingWriter(path, 0, TUNING);
    const lent = writer.lend();
    expect(lent.length).toBe(TUNING.batchBytes);
    const first = landRead(lent, Buffer.alloc(1000, 1));
    writer.write(first);
    // the gathered bytes are the lent memory itself: the next loan starts right after them
    const next = writer.lend();
    expect(next.buffer).toBe(lent.buffer);
    expect(next.byteOffset).toBe(lent.byteOffset + 1000);
    writer.write(landRead(next, Buffer.alloc(3096, 2)));
    writer.write(landRead(writer.lend(), Buffer.alloc(10, 3)));
    expect(writer.bytes).toBe(4106);
    writer.close();
    expect(readFileSync(path)).toEqual(
      Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(3096, 2), Buffer.alloc(10, 3)]),
    );
  });

  it("never copies another chunk into the lent part before the read lands there", async () => {
    const path = join(tempDir(), "x.part");
    const writer = openHashingWriter(path, 0, TUNING);
    writer.write(landRead(writer.lend(), Buffer.alloc(100, 1)));
    const lent = writer.lend();
    // a chunk from elsewhere (bytes stashed while the socket was paused) comes first...
    writer.write(Buffer.alloc(50, 2));
    // ...then the socket's read lands where it was lent
    writer.write(landRead(lent, Buffer.alloc(70, 3)));
    writer.close();
    const expected = Buffer.concat([
      Buffer.alloc(100, 1),
      Buffer.alloc(50, 2),
      Buffer.alloc(70, 3),
    ]);
    expect(readFileSync(path)).toEqual(expected);
    expect(await writer.digest()).toBe(createHash("sha256").update(expected).digest("hex"));
  });

  it("writes the same bytes and hash for any mix of lent reads, copied chunks and flushes", async () => {
    const rnd = prng(23);
    for (let round = 0; round < 20; round++) {
      const path = join(tempDir(), "x.part");
      const writer = openHashingWriter(path, 0, TUNING);
      const expected: Buffer[] = [];
      let lent: Buffer | undefined;
      for (let step = 0; step < 60; step++) {
        const size = 1 + Math.floor(rnd() * (rnd() < 0.2 ? 4096 : 700));
        const data = Buffer.alloc(size, Math.floor(rnd() * 256));
        const roll = rnd();
        if (roll < 0.1) writer.flush();
        if (roll < 0.4) lent = writer.lend();
        if (lent && roll >= 0.2 && size <= lent.length) {
          writer.write(landRead(lent, data)); // the socket read into the last loan
          lent = undefined;
        } else writer.write(data);
        expected.push(data);
      }
      writer.close();
      const all = Buffer.concat(expected);
      expect(readFileSync(path).equals(all)).toBe(true);
      expect(await writer.digest()).toBe(createHash("sha256").update(all).digest("hex"));
    }
  });
});

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

describe("download writer: the SHA-256 is of the file as read back", () => {
  it("is the hash of the bytes on disk, not of the buffers it was given", async () => {
    const path = join(tempDir(), "x.part");
    const writer = openHashingWriter(path, 0, TUNING);
    const given = Buffer.alloc(10_000, 5);
    writer.write(given);
    writer.close();
    // the disk holds something else than what was handed over (a damaged write)
    const onDisk = readFileSync(path);
    onDisk[7777] = 6;
    writeFileSync(path, onDisk);
    expect(await writer.digest()).toBe(sha256(onDisk));
    expect(await openAndDigest(path, onDisk.length)).toBe(sha256(onDisk));
  });

  it("a resumed file is hashed from its first byte, and bytes after the kept part are cut off", async () => {
    const path = join(tempDir(), "x.part");
    writeFileSync(path, Buffer.concat([Buffer.alloc(3000, 1), Buffer.alloc(500, 9)]));
    const writer = openHashingWriter(path, 3000, TUNING);
    expect(writer.bytes).toBe(3000);
    writer.write(Buffer.alloc(2000, 2));
    writer.close();
    const expected = Buffer.concat([Buffer.alloc(3000, 1), Buffer.alloc(2000, 2)]);
    expect(readFileSync(path).equals(expected)).toBe(true);
    expect(await writer.digest()).toBe(sha256(expected));
  });

  it("a second consumer gets every block once, in order, as read back", async () => {
    const path = join(tempDir(), "x.part");
    const seen: Buffer[] = [];
    let next = 0;
    const writer = openHashingWriter(path, 0, {
      ...TUNING,
      consumers: [
        {
          update(block, offset) {
            expect(offset).toBe(next);
            next += block.length;
            seen.push(Buffer.from(block));
          },
        },
      ],
    });
    const rnd = prng(5);
    const data = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < data.length; i++) data[i] = Math.floor(rnd() * 256);
    for (let at = 0; at < data.length; at += 5000) writer.write(data.subarray(at, at + 5000));
    writer.close();
    expect(await writer.digest()).toBe(sha256(data));
    expect(Buffer.concat(seen).equals(data)).toBe(true);
  });

  it("fails write_failed when the file does not hold the bytes written", async () => {
    const path = join(tempDir(), "x.part");
    const writer = openHashingWriter(path, 0, TUNING);
    writer.write(Buffer.alloc(9000, 1));
    writer.close();
    truncateSync(path, 100);
    await expect(writer.digest()).rejects.toMatchObject({ code: "write_failed" });
  });
});

/** The digest of a writer that resumes `path` at its full `size` and adds nothing. */
async function openAndDigest(path: string, size: number): Promise<string> {
  const writer = openHashingWriter(path, size, TUNING);
  writer.close();
  return writer.digest();
}
