import { describe, expect, it } from "vitest";
import {
  fallbackFileName,
  isSafeBaseName,
  nameFromContentDisposition,
  safeBaseName,
  validateSlug,
} from "../../src/outdir/names.js";

describe("safeBaseName", () => {
  it.each([
    ["forest.zip", "forest.zip"],
    ["../../etc/passwd", "passwd"],
    ["/abs/path/x.glb", "x.glb"],
    ["..\\..\\win.zip", "win.zip"],
    ["a\u0000b\u001fc\u007f.zip", "abc.zip"],
    ["bidi\u202egpj.zip", "bidigpj.zip"],
    ["..", undefined],
    [".", undefined],
    ["", undefined],
    ["   ", undefined],
    ["dir/", undefined],
    [".hidden", "hidden"],
    ["...zip", "zip"],
    ['we<ir>d:"|?*.zip', "we_ir_d_____.zip"],
    ["trailing. ", "trailing"],
    ["日本語.zip", "日本語.zip"],
  ])("%j → %j", (raw, expected) => {
    expect(safeBaseName(raw)).toBe(expected);
  });

  it("cuts long names to 200 bytes keeping the extension", () => {
    const name = safeBaseName(`${"é".repeat(300)}.zip`);
    expect(name).toBeDefined();
    expect(Buffer.byteLength(name ?? "")).toBeLessThanOrEqual(200);
    expect(name?.endsWith(".zip")).toBe(true);
  });
});

describe("nameFromContentDisposition", () => {
  it("prefers filename* over filename", () => {
    expect(
      nameFromContentDisposition(
        "attachment; filename=\"plain.zip\"; filename*=UTF-8''%E2%82%AC%20rates.zip",
      ),
    ).toBe("€ rates.zip");
  });
  it("reduces hostile names", () => {
    expect(nameFromContentDisposition('attachment; filename="../../x.zip"')).toBe("x.zip");
    expect(nameFromContentDisposition("attachment; filename*=UTF-8''..%2F..%2Fy.zip")).toBe(
      "y.zip",
    );
    expect(nameFromContentDisposition('attachment; filename=".."')).toBeUndefined();
  });
  it("tolerates headers the strict parser refuses", () => {
    expect(nameFromContentDisposition("attachment; filename=my pack.zip")).toBe("my pack.zip");
    expect(nameFromContentDisposition("attachment")).toBeUndefined();
    expect(nameFromContentDisposition(undefined)).toBeUndefined();
  });
});

describe("fallbackFileName", () => {
  it("follows the contract", () => {
    expect(fallbackFileName("pack", "forest", "standard")).toBe("forest.zip");
    expect(fallbackFileName("pack", "forest", "authoring")).toBe("forest-authoring.zip");
    expect(fallbackFileName("asset", "oak", null)).toBe("oak.glb");
  });
});

describe("validateSlug", () => {
  it.each(["", " ", ".", "..", "a/b", "a\\b", "x\ny", "x\u0000"])("refuses %j (exit 2)", (slug) => {
    expect(() => validateSlug(slug)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
  it.each(["forest", "a.b", "sci-fi_props", "weird slug?#"])("accepts %j", (slug) => {
    expect(validateSlug(slug)).toBe(slug);
  });
});

describe("isSafeBaseName (names read back from .svc-dl/)", () => {
  it.each([
    "../x.zip",
    "/etc/passwd",
    "a/b.zip",
    "a\\b.zip",
    "..",
    ".",
    "",
    ".svc-dl",
    ".hidden",
    "x\u0000y",
    "CON",
    "nul.txt",
    " spaced.zip",
  ])("refuses %j", (name) => {
    expect(isSafeBaseName(name)).toBe(false);
  });
  it.each(["forest.zip", "my pack.zip", "sci-fi_props-authoring.zip", "oak.glb"])(
    "accepts %j",
    (name) => {
      expect(isSafeBaseName(name)).toBe(true);
    },
  );
});
