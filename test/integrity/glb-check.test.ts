import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findDamage } from "../../src/integrity/check-file.js";
import { tempDir } from "../helpers/download.js";

const dir = tempDir("glb-check-");
let n = 0;

type Chunk = { type: string; body: Buffer; length?: number };

function chunk(type: string, body: Buffer | string, length?: number): Chunk {
  return {
    type,
    body: typeof body === "string" ? Buffer.from(body) : body,
    ...(length !== undefined ? { length } : {}),
  };
}

/** A GLB of these chunks; `declared`/`version`/`magic` override the header's fields. */
function glb(
  chunks: Chunk[],
  over: { declared?: number; version?: number; magic?: string } = {},
): Buffer {
  const parts = chunks.map((c) => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(c.length ?? c.body.length, 0);
    head.write(c.type.padEnd(4, "\0"), 4, "latin1");
    return Buffer.concat([head, c.body]);
  });
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(12);
  header.write(over.magic ?? "glTF", 0, "latin1");
  header.writeUInt32LE(over.version ?? 2, 4);
  header.writeUInt32LE(over.declared ?? 12 + body.length, 8);
  return Buffer.concat([header, body]);
}

const json = chunk("JSON", '{"asset":{"version":"2.0"}}    '.slice(0, 28)); // 28 bytes
const bin = chunk("BIN", Buffer.alloc(16, 0xab));

async function check(bytes: Buffer): Promise<string | undefined> {
  const path = join(dir, `f${n++}.glb`);
  writeFileSync(path, bytes);
  return (await findDamage(path, "glb"))?.reason;
}

describe("findDamage (glb): the structure of binary glTF 2.0", () => {
  it.each([
    ["JSON and BIN", glb([json, bin])],
    ["JSON only", glb([json])],
    ["JSON padded with spaces", glb([chunk("JSON", '{"a":1}     ')])],
    [
      "an unknown chunk type after BIN (skipped, as the format says)",
      glb([json, bin, chunk("XTRA", Buffer.alloc(4))]),
    ],
  ])("passes %s", async (_, bytes) => {
    expect(await check(bytes)).toBeUndefined();
  });

  it.each([
    ["a short file", Buffer.from("glTF\u0002\u0000"), /too short/],
    ["another magic", glb([json], { magic: "PK\u0003\u0004" }), /no glTF magic/],
    ["version 1", glb([json], { version: 1 }), /version 1/],
    [
      "a declared length over the size",
      glb([json, bin], { declared: 100 }),
      /declares 100 bytes but the file has 72/,
    ],
    [
      "a chunk length not a multiple of 4",
      glb([chunk("JSON", '{"a":1}  ', 9), chunk("X", "xxx")]),
      /not a multiple of 4/,
    ],
    [
      "a chunk running past the end",
      glb([json, chunk("BIN", Buffer.alloc(8), 16)]),
      /runs past the end/,
    ],
    [
      "a file ending inside a chunk header",
      Buffer.concat([glb([json]), Buffer.alloc(4)]),
      /declares/,
    ],
    ["BIN first", glb([bin, json]), /first GLB chunk is not JSON/],
    ["no chunk at all", glb([]), /no JSON chunk/],
    ["JSON that does not parse", glb([chunk("JSON", '{"a":1,}    ')]), /not valid JSON/],
    [
      "JSON that is not UTF-8",
      glb([chunk("JSON", Buffer.from([0x22, 0xff, 0xfe, 0x22]))]),
      /not valid UTF-8/,
    ],
    ["two BIN chunks", glb([json, bin, bin]), /second BIN chunk/],
    ["two JSON chunks", glb([json, json]), /second JSON chunk/],
    ["an empty file", Buffer.alloc(0), /empty/],
  ])("refuses %s", async (_, bytes, reason) => {
    expect(await check(bytes)).toMatch(reason);
  });

  it("refuses a file ending inside a chunk header when the header agrees with the size", async () => {
    const bytes = Buffer.concat([glb([json]), Buffer.alloc(4)]);
    bytes.writeUInt32LE(bytes.length, 8);
    expect(await check(bytes)).toMatch(/ends inside a chunk header/);
  });
});
