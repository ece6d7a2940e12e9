import { describe, expect, it } from "vitest";
import { renderBarLine, shortenName } from "../../src/io/progress-line.js";

const line = {
  name: "sci-fi-props-authoring-edition.zip",
  bytes: 12_345_678,
  total: 45_000_000,
  rate: 3_400_000,
};

describe("the progress bar fits the terminal (cli-contract: Streams and output)", () => {
  it("at 120 columns shows the whole name, bar, percent, bytes, rate and ETA", () => {
    const text = renderBarLine(line, 120);
    expect(text).toBe(
      "sci-fi-props-authoring-edition.zip ████████░░░░░░░░░░░░░░░░░░░░░░  27%  11.8 MiB/42.9 MiB  3.2 MiB/s  ETA 9.6s",
    );
    expect(text.length).toBeLessThan(120);
  });

  it("at 80 columns still shows name, percent, bytes, rate and ETA, shortening the name first", () => {
    const text = renderBarLine(line, 80);
    expect(text.length).toBeLessThanOrEqual(79);
    expect(text).toMatch(/ 27% {2}11\.8 MiB\/42\.9 MiB {2}3\.2 MiB\/s {2}ETA 9\.6s$/);
    expect(text).toMatch(/^sci-fi-p…/);
  });

  it("at 40 columns keeps the percentage and drops the rest in order", () => {
    const text = renderBarLine(line, 40);
    expect(text.length).toBeLessThanOrEqual(39);
    expect(text).toContain("27%");
    expect(text).not.toContain("ETA");
  });

  it("keeps a sync's label, and never passes the width at any size", () => {
    for (let columns = 20; columns <= 200; columns++) {
      const text = renderBarLine({ ...line, label: "pack 3/12" }, columns);
      expect([...text].length, `at ${columns}`).toBeLessThanOrEqual(columns - 1);
    }
    expect(renderBarLine({ ...line, label: "pack 3/12" }, 120)).toMatch(/^pack 3\/12 {2}sci-fi/);
  });

  it("shows bytes and rate when the size is unknown", () => {
    expect(renderBarLine({ ...line, total: undefined }, 80)).toBe(
      "sci-fi-props-authoring-edition.zip 11.8 MiB  3.2 MiB/s",
    );
  });

  it("shortens a name in its middle, keeping the extension", () => {
    expect(shortenName("forest-pack-standard.zip", 15)).toBe("forest-…ard.zip");
    expect(shortenName("short.zip", 15)).toBe("short.zip");
  });
});
