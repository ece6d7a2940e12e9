import { describe, expect, it } from "vitest";
import { hasUnsafeTerminalText, terminalText } from "../../src/io/terminal-text.js";

describe("terminalText (cli-contract: terminal safety)", () => {
  it.each([
    ["\u001b]0;pwned\u0007", "\\x1b]0;pwned\\x07"],
    ["\u001b[2J", "\\x1b[2J"],
    ["a\rb", "a\\x0db"],
    ["line\nforged", "line\\x0aforged"],
    ["tab\there", "tab\\x09here"],
    ["del\u007f", "del\\x7f"],
    ["c1\u009b31m", "c1\\x9b31m"],
    ["bidi\u202eevil", "bidi\\u202eevil"],
    ["\u061c\u200e\u200f\u2066\u2069", "\\u061c\\u200e\\u200f\\u2066\\u2069"],
  ])("escapes %j", (input, expected) => {
    expect(terminalText(input)).toBe(expected);
    expect(hasUnsafeTerminalText(input)).toBe(true);
  });

  it("leaves ordinary text, accents and emoji alone", () => {
    for (const s of ["forest-pack", "Café Ünïcode 森", "pack 🌲", "a\\x1b"]) {
      expect(terminalText(s)).toBe(s);
      expect(hasUnsafeTerminalText(s)).toBe(false);
    }
  });

  it("turns undefined and null into an empty string, and numbers into text", () => {
    expect(terminalText(undefined)).toBe("");
    expect(terminalText(null)).toBe("");
    expect(terminalText(42)).toBe("42");
  });
});
