import { describe, expect, it } from "vitest";
import { parseContentLength, parseContentRange } from "../../src/download/content-range.js";

describe("parseContentRange", () => {
  it.each([
    ["bytes 0-99/100", { kind: "range", start: 0, end: 99, total: 100 }],
    ["bytes 100-199/1000", { kind: "range", start: 100, end: 199, total: 1000 }],
    ["BYTES 5-9/*", { kind: "range", start: 5, end: 9, total: undefined }],
    ["bytes */4096", { kind: "unsatisfied", total: 4096 }],
    ["  bytes 0-0/1 ", { kind: "range", start: 0, end: 0, total: 1 }],
  ])("%j", (header, expected) => {
    expect(parseContentRange(header)).toEqual(expected);
  });

  it.each([
    [undefined],
    [""],
    ["bytes 10-5/100"],
    ["bytes 0-100/100"],
    ["items 0-1/2"],
    ["bytes 0-1"],
    ["bytes -1-5/10"],
    ["bytes 0-99999999999999999999/100000000000000000000"],
    ["bytes */"],
  ])("refuses %j", (header) => {
    expect(parseContentRange(header)).toBeUndefined();
  });
});

describe("parseContentLength", () => {
  it("parses whole numbers only", () => {
    expect(parseContentLength("123")).toBe(123);
    expect(parseContentLength(" 0 ")).toBe(0);
    expect(parseContentLength("12a")).toBeUndefined();
    expect(parseContentLength("-1")).toBeUndefined();
    expect(parseContentLength(undefined)).toBeUndefined();
  });
});
