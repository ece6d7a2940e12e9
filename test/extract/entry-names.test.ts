import { describe, expect, it } from "vitest";
import { checkEntryName, collisionKey, entryType } from "../../src/extract/entry-names.js";

describe("checkEntryName", () => {
  it("splits safe names into segments and marks folders", () => {
    expect(checkEntryName("forest/models/oak.glb")).toEqual({
      segments: ["forest", "models", "oak.glb"],
      directory: false,
    });
    expect(checkEntryName("forest/docs/")).toEqual({
      segments: ["forest", "docs"],
      directory: true,
    });
    expect(checkEntryName("Ünïcode name.txt")).toEqual({
      segments: ["Ünïcode name.txt"],
      directory: false,
    });
  });

  it.each([
    ["", /empty name/],
    ["/etc/passwd", /absolute path/],
    ["C:/Windows/evil.dll", /drive letter/],
    ["c:evil", /drive letter/],
    ["a\\b.txt", /backslash/],
    ["..\\evil", /climbs out/],
    ["../evil", /climbs out/],
    ["a/../../evil", /climbs out/],
    ["a//b", /empty or "." segment/],
    ["./a", /empty or "." segment/],
    ["a/what?.txt", /not valid on Windows/],
    ["a<b", /not valid on Windows/],
    ['a"b', /not valid on Windows/],
    ["a|b", /not valid on Windows/],
    ["a*b", /not valid on Windows/],
    ["ab:c", /not valid on Windows/],
    ["a\u0001b", /not valid on Windows/],
    ["trailing./x", /dot or a space/],
    ["trailing ", /dot or a space/],
    ["CON", /reserved/],
    ["dir/con.txt", /reserved/],
    ["NUL.tar.gz", /reserved/],
    ["com1", /reserved/],
    ["LPT9.glb", /reserved/],
    ["aux/x", /reserved/],
    ["PRN.", /dot or a space|reserved/],
  ])("refuses %j", (name, problem) => {
    const result = checkEntryName(name);
    expect(result).toEqual({ kind: expect.any(String), reason: expect.stringMatching(problem) });
  });

  it.each([
    [`${"a/".repeat(64)}x`, "too deep", /65 levels deep \(at most 64\)/],
    [`${"a/".repeat(2100)}x`, "too deep", /2101 levels deep/],
    [`pack/${"n".repeat(300)}.txt`, "name too long", /304-byte name \(at most 255 bytes\)/],
    [`${"é".repeat(128)}`, "name too long", /256-byte name/],
    [
      `${`${"p".repeat(99)}/`.repeat(11)}evil.txt`,
      "path too long",
      /1108-byte path \(at most 1024/,
    ],
  ])("refuses a name past the limits (%#) as %s", (name, kind, problem) => {
    expect(checkEntryName(name)).toEqual({ kind, reason: expect.stringMatching(problem) });
  });

  it("accepts names at the limits: 64 levels, 255-byte names, 1,024-byte paths", () => {
    const deep = checkEntryName(`${"a/".repeat(63)}x`);
    expect("segments" in deep && deep.segments.length).toBe(64);
    expect("segments" in checkEntryName("n".repeat(255))).toBe(true);
    const path = `${`${"p".repeat(99)}/`.repeat(10)}${"q".repeat(24)}`;
    expect(Buffer.byteLength(path)).toBe(1024);
    expect("segments" in checkEntryName(path)).toBe(true);
  });

  it("names the kind of each refusal, so the hint can name the cause", () => {
    expect(checkEntryName("../evil")).toMatchObject({ kind: "outside" });
    expect(checkEntryName("/etc/passwd")).toMatchObject({ kind: "outside" });
    expect(checkEntryName("C:/x")).toMatchObject({ kind: "outside" });
    expect(checkEntryName("a/CON")).toMatchObject({ kind: "not valid on Windows" });
  });

  it("accepts names that only look like device names", () => {
    expect(typeof checkEntryName("console.txt")).toBe("object");
    expect(typeof checkEntryName("com10.txt")).toBe("object");
    expect(typeof checkEntryName("lpt.txt")).toBe("object");
  });
});

describe("entryType", () => {
  it("reads the unix mode of the external attributes", () => {
    expect(entryType((0o100644 << 16) >>> 0)).toBe("file");
    expect(entryType((0o040755 << 16) >>> 0)).toBe("directory");
    expect(entryType((0o120777 << 16) >>> 0)).toBe("symlink");
    expect(entryType((0o010644 << 16) >>> 0)).toBe("special");
    expect(entryType(0x20)).toBe("plain");
    expect(entryType(0x400)).toBe("symlink");
  });
});

describe("collisionKey", () => {
  it("folds case and Unicode normalisation", () => {
    expect(collisionKey(["A", "B.txt"])).toBe(collisionKey(["a", "b.TXT"]));
    expect(collisionKey(["e\u0301"])).toBe(collisionKey(["\u00e9"]));
  });
});
