import { describe, expect, it } from "vitest";
import { formatJsonPath, parseStrictJson } from "../../src/io/strict-json.js";

describe("parseStrictJson (cli-contract: manifest and lock JSON)", () => {
  it("parses JSON, with or without a UTF-8 byte-order mark", () => {
    expect(parseStrictJson('{"a":[1,{"b":null}]}')).toEqual({
      ok: true,
      value: { a: [1, { b: null }] },
    });
    expect(parseStrictJson('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it.each([
    ['{"dir":"vendor","dir":"../escaped"}', 'dir: duplicate key "dir"'],
    ['{"packs":[{"slug":"a"},{"slug":"b","slug":"c"}]}', 'packs[1].slug: duplicate key "slug"'],
    ['{"a":{"b":{"c":1,"c":2}}}', 'a.b.c: duplicate key "c"'],
    ['\uFEFF{"x":1,"x":1}', 'x: duplicate key "x"'],
  ])("refuses a key named twice in one object: %s", (text, problem) => {
    const r = parseStrictJson(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.problem).toContain(problem);
  });

  it("accepts the same key in sibling objects and at different depths", () => {
    const r = parseStrictJson('{"slug":1,"items":[{"slug":2},{"slug":3,"x":{"slug":4}}]}');
    expect(r.ok).toBe(true);
  });

  it.each(['{"a":1,}', '{"a":1 // note\n}', "{a:1}", "", '{"a":1}{'])(
    "refuses what JSON.parse refuses: %j",
    (text) => {
      const r = parseStrictJson(text);
      expect(r.ok ? "" : r.problem).toMatch(/^not valid JSON/);
    },
  );

  it("formats JSON paths as zod errors are reported", () => {
    expect(formatJsonPath([])).toBe("(top level)");
    expect(formatJsonPath(["packs", 1, "edition"])).toBe("packs[1].edition");
  });
});
