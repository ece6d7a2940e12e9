import { describe, expect, it } from "vitest";
import { checkLeadingBytes, checkZipTail } from "../../src/download/format.js";
import type { CheckedFormat } from "../../src/integrity/check-file.js";

/** A minimal valid ZIP with one stored entry `a.txt` holding "hi". */
function tinyZip(comment = ""): Buffer {
  const name = Buffer.from("a.txt");
  const data = Buffer.from("hi");
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  const cdOffset = local.length + name.length + data.length;
  const cd = Buffer.concat([central, name]);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(1, 8);
  eocd.writeUInt16LE(1, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(cdOffset, 16);
  eocd.writeUInt16LE(Buffer.byteLength(comment), 20);
  return Buffer.concat([local, name, data, cd, eocd, Buffer.from(comment)]);
}

function glb(declared: number, actual: number, version = 2): Buffer {
  const buf = Buffer.alloc(actual);
  buf.write("glTF", 0, "latin1");
  buf.writeUInt32LE(version, 4);
  buf.writeUInt32LE(declared, 8);
  return buf;
}

/** The checks of a streamed download (`-o -`): its first bytes, then for a ZIP its last ones. */
function streamCheck(bytes: Buffer, format: CheckedFormat): string | undefined {
  const head = checkLeadingBytes(format, bytes.subarray(0, 12), bytes.length);
  if (head || format === "glb") return head;
  const tail = bytes.subarray(Math.max(0, bytes.length - 65_557));
  return checkZipTail(tail, bytes.length, (offset) => bytes.subarray(offset, offset + 4));
}

describe("ZIP check of a streamed download", () => {
  it("accepts a valid archive, with or without a comment", () => {
    expect(streamCheck(tinyZip(), "zip")).toBeUndefined();
    expect(streamCheck(tinyZip("hello"), "zip")).toBeUndefined();
  });
  it("refuses an HTML page", () => {
    expect(streamCheck(Buffer.from("<!doctype html><p>Bad gateway</p>"), "zip")).toMatch(
      /not a ZIP/,
    );
  });
  it("refuses a truncated archive (no end record)", () => {
    const zip = tinyZip();
    expect(streamCheck(zip.subarray(0, zip.length - 10), "zip")).toMatch(/end-of-central/);
  });
  it("refuses an archive cut before its central directory", () => {
    const zip = tinyZip();
    const eocd = zip.subarray(zip.length - 22);
    const cut = Buffer.concat([zip.subarray(0, 30), eocd]);
    expect(streamCheck(cut, "zip")).toMatch(/central directory/);
  });
  it("refuses an empty file", () => {
    expect(streamCheck(Buffer.alloc(0), "zip")).toMatch(/empty/);
  });
});

describe("GLB check of a streamed download", () => {
  it("accepts glTF 2 whose declared length equals the size", () => {
    expect(streamCheck(glb(64, 64), "glb")).toBeUndefined();
  });
  it("refuses a declared length that differs from the size", () => {
    expect(streamCheck(glb(128, 64), "glb")).toMatch(/declares 128 bytes/);
  });
  it("refuses another magic or version", () => {
    expect(streamCheck(Buffer.from("PK\u0003\u0004xxxxxxxxxxxx"), "glb")).toMatch(/not a GLB/);
    expect(streamCheck(glb(64, 64, 1), "glb")).toMatch(/version 1/);
  });
  it("checks leading bytes of a stream", () => {
    expect(checkLeadingBytes("glb", glb(64, 12), 64)).toBeUndefined();
    expect(checkLeadingBytes("zip", Buffer.from("PK\u0003\u0004"))).toBeUndefined();
    expect(checkLeadingBytes("zip", Buffer.from("<htm"))).toMatch(/not a ZIP/);
  });
});
